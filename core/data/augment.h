#pragma once
// Training-time augmentation. Engine header: includes LibTorch.

#include <cstdint>

#include <torch/types.h>

namespace saccade {

/// Shifts each image of `images` [B, C, H, W] by whole pixels, filling the uncovered border with
/// zeros. Image b's offset is drawn uniformly among those that keep its box (`boxes` [B, 4]: x, y,
/// w, h in pixels) on the canvas; an image without a box (w or h 0) stays. Deterministic: the
/// offsets come from `seed` alone. The result is on the images' device.
torch::Tensor shiftKeepingBoxes(const torch::Tensor& images, const torch::Tensor& boxes, std::uint64_t seed);

/// How many of `boxes` ([B, 4]) shiftKeepingBoxes could move on a height x width canvas: those
/// with a box that leaves room on some side.
std::int64_t movableBoxes(const torch::Tensor& boxes, std::int64_t height, std::int64_t width);

}  // namespace saccade
