#pragma once
// The device that the tests which take one run on: SACCADE_TEST_DEVICE ("cpu" when unset).
// scripts/gpu-check.sh runs them with SACCADE_TEST_DEVICE=cuda.

#include <cstdlib>
#include <string>

namespace saccade::test {

inline std::string testDevice() {
    const char* device = std::getenv("SACCADE_TEST_DEVICE");
    return device && *device ? device : "cpu";
}

}  // namespace saccade::test
