#include "metrics/accuracy.h"

#include <cmath>

namespace saccade {

RuleAccuracy wilsonAccuracy(const std::string& rule, std::int64_t correct, std::int64_t n) {
    RuleAccuracy r{rule, correct, n};
    if (n == 0) return r;
    const double z = 1.96, p = double(correct) / n, z2n = z * z / n;
    const double centre = (p + z2n / 2) / (1 + z2n);
    const double half = z * std::sqrt(p * (1 - p) / n + z2n / (4.0 * n)) / (1 + z2n);
    r.accuracy = p;
    r.low = centre - half;
    r.high = centre + half;
    return r;
}

}  // namespace saccade
