#pragma once
// Shared pieces of the training loops: the seeded order of training images (a fresh permutation
// for every pass), and the conversion of a time budget into a fixed iteration count.

#include <cstdint>
#include <vector>

namespace saccade {

/// A fresh seeded permutation of [0, n) for every pass over the split; at(i) is the i-th image
/// of the whole run. Deterministic per seed.
class TrainingOrder {
public:
    TrainingOrder(std::int64_t n, std::uint64_t seed) : m_n(n), m_seed(seed) {}
    std::int64_t at(std::int64_t global);
    /// The split's size n.
    std::int64_t size() const { return m_n; }

private:
    std::int64_t m_n;
    std::uint64_t m_seed;
    std::int64_t m_epoch = -1;
    std::vector<std::int64_t> m_perm;
};

/// The time budget is turned into an iteration count from the speed of iterations 5..30 (the
/// first few pay for allocations and thread start-up), so a rerun with --iterations N repeats it.
class IterationBudget {
public:
    static constexpr std::int64_t kWarmupStart = 5, kWarmupEnd = 30;
    /// `total` > 0: fixed; else `minutes` decides after the warm-up.
    IterationBudget(std::int64_t total, double minutes, std::int64_t firstIteration)
        : m_total(total), m_minutes(minutes), m_first(firstIteration) {}
    /// Call before each iteration with the elapsed seconds; returns the total (0 while unknown).
    std::int64_t update(std::int64_t iteration, double elapsedSeconds);
    std::int64_t total() const { return m_total; }

private:
    std::int64_t m_total;
    double m_minutes;
    std::int64_t m_first;
    double m_warmupStart = 0;
};

}  // namespace saccade
