#pragma once
// Benchmark timing: the median of repeated runs after warm-up runs.

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace saccade {

/// A timing's median with its spread over the timed repeats: the fastest and the slowest.
struct TimedMs {
    double median = 0, fastest = 0, slowest = 0;
};

/// Runs `f` `warmups` times untimed (allocations, thread pools), then `repeats` times timed;
/// the median, fastest and slowest in milliseconds. Requires repeats >= 1.
template <typename F>
TimedMs timedMs(int repeats, F&& f, int warmups = 2) {
    for (int i = 0; i < warmups; ++i) f();
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front(), ms.back()};
}

/// The median alone (timedMs).
template <typename F>
double medianMs(int repeats, F&& f, int warmups = 2) {
    return timedMs(repeats, std::forward<F>(f), warmups).median;
}

}  // namespace saccade
