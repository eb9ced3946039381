#include "common/rng.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace saccade {

Rng::Rng(std::uint64_t seed) : m_seed(seed), m_generator(at::detail::createCPUGenerator(seed)) {}

torch::Tensor Rng::uniform(at::IntArrayRef shape, const torch::Device& device) {
    auto u = torch::rand(shape, m_generator, torch::TensorOptions().dtype(torch::kFloat32));
    return device.is_cpu() ? u : u.to(device);
}

torch::Tensor Rng::normal(at::IntArrayRef shape, const torch::Device& device) {
    auto n = torch::randn(shape, m_generator, torch::TensorOptions().dtype(torch::kFloat32));
    return device.is_cpu() ? n : n.to(device);
}

}  // namespace saccade
