#pragma once
// Rng: a seeded random stream that gives the same numbers on every device. Uniforms are drawn on
// the CPU from a generator owned by the stream and then moved to the target device, so a trace
// with a given seed does not depend on CUDA's generator or on any global state.

#include <cstdint>

#include <ATen/core/Generator.h>
#include <torch/types.h>

namespace saccade {

/// Not thread-safe: one Rng per run or per thread.
class Rng {
public:
    explicit Rng(std::uint64_t seed);

    /// Uniform float32 numbers in [0, 1) of the given shape, on `device`.
    torch::Tensor uniform(at::IntArrayRef shape, const torch::Device& device);
    /// Standard normal float32 numbers of the given shape, on `device` (same stream).
    torch::Tensor normal(at::IntArrayRef shape, const torch::Device& device);
    std::uint64_t seed() const { return m_seed; }

private:
    std::uint64_t m_seed;
    at::Generator m_generator;
};

}  // namespace saccade
