#pragma once
#include <functional>

namespace saccade {
/// Reports the fraction done in [0, 1]; returning false asks the operation to cancel.
using Progress = std::function<bool(double fraction)>;
}  // namespace saccade
