#pragma once
// Per-sample random streams: a sample's generator is seeded from (dataset seed, split, index)
// through splitmix64, so sample i is the same image in any order, on any thread or platform.

#include <cstdint>
#include <random>

namespace saccade {

inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// A seed for item `index` of stream `stream` under `seed`.
inline std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
}

/// A platform-independent uniform in [0,1) from the top 53 bits.
inline double uniform01(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/// A platform-independent integer uniform in [lo, hi] (hi >= lo).
inline std::int64_t uniformInt(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<double>(hi - lo + 1);
    const auto v = lo + static_cast<std::int64_t>(uniform01(rng) * span);
    return v > hi ? hi : v;
}

}  // namespace saccade
