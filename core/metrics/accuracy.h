#pragma once
// Accuracy with its 95% Wilson score interval. Pure C++.

#include <cstdint>
#include <string>

namespace saccade {

/// Accuracy of one evaluation rule on n images, with a 95% Wilson interval.
struct RuleAccuracy {
    std::string rule;
    std::int64_t correct = 0, n = 0;
    double accuracy = 0, low = 0, high = 0;
};

/// The Wilson score interval (95%) of correct out of n.
RuleAccuracy wilsonAccuracy(const std::string& rule, std::int64_t correct, std::int64_t n);

}  // namespace saccade
