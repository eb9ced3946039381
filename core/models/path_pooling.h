#pragma once
// max-pool(ReLU(z)) of the features z_p = start + alphas[p] * direction along a straight path,
// in one pass: what a convolutional classifier computes after its first convolution at every
// point of integrated gradients' path (models/gradient_forward.h's AffineInputSplit). ATen forms
// the [P, C, H, W] features, their ReLU, the pooling's int64 indices and, backwards, a zeroed
// [P, C, H, W] gradient (15 MB each for 65 points of 16 x 60 x 60) and its sum over P; here
// each window's values live in registers, the backward pass writes straight into the [1, C, H, W]
// sums, and the pool comes before the ReLU (they commute), so only the maxima are rectified. The
// loops run along the channels (channels last), and the result is channels last, as
// convolutions read it fastest.
// Contiguous float CPU tensors take the fused loops; anything else (CUDA, double) the same
// arithmetic in ATen operations.
// Engine header: includes LibTorch.

#include <cstdint>

#include <torch/types.h>

namespace saccade {

/// start, direction [1, C, H, W]; alphas [P]; a `kernel` x `kernel` max-pool of stride `kernel`
/// (no padding; rows and columns past a whole window are dropped, as max_pool2d does). Returns
/// [P, C, H / kernel, W / kernel] with channels-last strides; differentiable in start and direction
/// (not alphas). A window's gradient goes to its first maximum, as max_pool2d's does; a maximum
/// <= 0 passes none (ReLU).
torch::Tensor reluMaxPoolOnPath(const torch::Tensor& start, const torch::Tensor& direction, const torch::Tensor& alphas,
                                std::int64_t kernel);

/// The same in ATen operations, forming every point (the reference the fused loops are tested
/// against): max_pool2d(relu(start + alphas * direction)).
torch::Tensor reluMaxPoolOnPathReference(const torch::Tensor& start, const torch::Tensor& direction,
                                         const torch::Tensor& alphas, std::int64_t kernel);

}  // namespace saccade
