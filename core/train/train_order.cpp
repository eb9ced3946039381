#include "train/train_order.h"

#include <numeric>
#include <random>
#include <utility>

#include "common/seed_mix.h"

namespace saccade {

namespace {
constexpr std::uint64_t kOrderStream = 0xe90c;
}  // namespace

std::int64_t TrainingOrder::at(std::int64_t global) {
    const auto epoch = global / m_n;
    if (epoch != m_epoch) {
        m_perm.resize(static_cast<std::size_t>(m_n));
        std::iota(m_perm.begin(), m_perm.end(), 0);
        std::mt19937_64 rng(mixSeed(m_seed, kOrderStream, static_cast<std::uint64_t>(epoch)));
        for (std::int64_t i = m_n - 1; i > 0; --i)  // Fisher-Yates with our portable uniform
            std::swap(m_perm[static_cast<std::size_t>(i)], m_perm[static_cast<std::size_t>(uniformInt(rng, 0, i))]);
        m_epoch = epoch;
    }
    return m_perm[static_cast<std::size_t>(global % m_n)];
}

std::int64_t IterationBudget::update(std::int64_t iteration, double elapsed) {
    if (m_total > 0) return m_total;
    if (iteration - m_first == kWarmupStart) m_warmupStart = elapsed;
    if (iteration - m_first == kWarmupEnd) {
        const double perIteration = (elapsed - m_warmupStart) / double(kWarmupEnd - kWarmupStart);
        m_total = iteration + static_cast<std::int64_t>(m_minutes * 60.0 * 0.93 / perIteration);
    }
    return m_total;
}

}  // namespace saccade
