#pragma once
// Rng: a seeded random stream that gives the same numbers on every device. Uniforms are drawn on
// the CPU from a generator owned by the stream and then moved to the target device, so a trace
// with a given seed does not depend on CUDA's generator or on any global state.

#include <cstdint>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/types.h>

namespace saccade {

/// Not thread-safe: one Rng per run or per thread.
class Rng {
public:
    explicit Rng(std::uint64_t seed);
    /// One stream per row: every draw must have `seeds.size()` rows, and row i holds exactly
    /// what Rng(seeds[i]) draws for a batch of one. So N runs batched on these seeds equal N
    /// separate runs with those seeds.
    static Rng perRow(const std::vector<std::uint64_t>& seeds);

    /// Uniform float32 numbers in [0, 1) of the given shape, on `device`.
    torch::Tensor uniform(at::IntArrayRef shape, const torch::Device& device);
    /// Standard normal float32 numbers of the given shape, on `device` (same stream).
    torch::Tensor normal(at::IntArrayRef shape, const torch::Device& device);
    std::uint64_t seed() const { return m_seed; }

private:
    torch::Tensor draw(at::IntArrayRef shape, const torch::Device& device, bool normal);

    std::uint64_t m_seed;
    at::Generator m_generator;
    std::vector<at::Generator> m_rows;  ///< per-row streams (perRow), else empty
};

}  // namespace saccade
