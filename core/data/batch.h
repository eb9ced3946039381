#pragma once
// Batched loading: samples generated in parallel into one tensor on the chosen device.
// Engine header: includes LibTorch.

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "data/dataset.h"

namespace saccade {

struct Batch {
    torch::Tensor images;  ///< [B, C, H, W] float32 in [0, 1]
    torch::Tensor labels;  ///< [B] int64 (-1 when unknown)
    torch::Tensor boxes;   ///< [B, 4] float32: x, y, w, h of the target in pixels
};

/// Generates samples `indices` of `split` on the CPU threads of LibTorch's pool and moves the
/// batch to `device`. Deterministic: the same indices give the same batch in any thread count.
/// With `samples`, the generated samples are also kept there (in batch order): captions,
/// references and object boxes for captioners.
Batch makeBatch(const Dataset& dataset, Split split, const std::vector<std::int64_t>& indices,
                const torch::Device& device, std::vector<Sample>* samples = nullptr);

}  // namespace saccade
