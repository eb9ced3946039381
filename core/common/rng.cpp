#include "common/rng.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace saccade {

Rng::Rng(std::uint64_t seed) : m_seed(seed), m_generator(at::detail::createCPUGenerator(seed)) {}

Rng Rng::perRow(const std::vector<std::uint64_t>& seeds) {
    TORCH_CHECK(!seeds.empty(), "Rng::perRow needs at least one seed");
    Rng rng(seeds.front());
    for (auto seed : seeds) rng.m_rows.push_back(at::detail::createCPUGenerator(seed));
    return rng;
}

torch::Tensor Rng::draw(at::IntArrayRef shape, const torch::Device& device, bool normal) {
    const auto options = torch::TensorOptions().dtype(torch::kFloat32);
    torch::Tensor out;
    if (m_rows.empty()) {
        out = normal ? torch::randn(shape, m_generator, options) : torch::rand(shape, m_generator, options);
    } else {
        TORCH_CHECK(!shape.empty() && shape[0] == std::int64_t(m_rows.size()), "a per-row stream of ", m_rows.size(),
                    " rows was asked for ", shape);
        // Each row filled by its own stream with the kernel a batch of one uses (same element
        // count, contiguous), so row i equals what Rng(seeds[i]) gives alone.
        out = torch::empty(shape, options);
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            auto row = out.select(0, std::int64_t(i));
            if (normal)
                row.normal_(0, 1, m_rows[i]);
            else
                row.uniform_(0, 1, m_rows[i]);
        }
    }
    return device.is_cpu() ? out : out.to(device);
}

torch::Tensor Rng::uniform(at::IntArrayRef shape, const torch::Device& device) { return draw(shape, device, false); }

torch::Tensor Rng::normal(at::IntArrayRef shape, const torch::Device& device) { return draw(shape, device, true); }

}  // namespace saccade
