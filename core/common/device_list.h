#pragma once
// The compute devices this build and machine offer, by name, without LibTorch headers (for the
// GUI's device selector).

#include <string>
#include <vector>

namespace saccade {

/// "cpu", then "cuda:0", "cuda:1", ... for each CUDA device present.
std::vector<std::string> availableDeviceNames();

}  // namespace saccade
