#pragma once
// Wall time per named stage of a forward pass: the model calls lap("stage") at the end of each
// stage and the time since the previous lap is added to that stage. `sync` (optional) waits for
// the device before each reading, so asynchronous CUDA work lands in the stage that queued it.

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace saccade {

class StageClock {
public:
    explicit StageClock(std::function<void()> sync = {}) : m_sync(std::move(sync)) {}

    /// Starts timing the first stage.
    void start() {
        if (m_sync) m_sync();
        m_last = std::chrono::steady_clock::now();
    }
    /// Adds the time since the last lap (or start) to `stage`.
    void lap(const std::string& stage) {
        if (m_sync) m_sync();
        const auto now = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(now - m_last).count();
        m_last = now;
        for (auto& [name, total] : m_seconds)
            if (name == stage) {
                total += s;
                return;
            }
        m_seconds.emplace_back(stage, s);
    }
    /// Seconds per stage, in the order the stages first appeared.
    const std::vector<std::pair<std::string, double>>& seconds() const { return m_seconds; }
    void reset() { m_seconds.clear(); }

private:
    std::function<void()> m_sync;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
    std::vector<std::pair<std::string, double>> m_seconds;
};

/// Laps `clock` when it is set: the models' hook, free when nobody is timing.
inline void lapIf(StageClock* clock, const char* stage) {
    if (clock) clock->lap(stage);
}

}  // namespace saccade
