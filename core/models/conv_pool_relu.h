#pragma once
// ReLU(max-pool(conv2d(x))) with a backward pass that reads only what the pool passes on. A
// k x k max-pool sends each window's gradient through one position, so the gradient reaching the
// convolution is zero at all but 1 / k^2 of its outputs; ATen's backward forms that sparse map
// (zeroed, then scattered) and runs a dense transposed convolution over it. Here the input's
// gradient is accumulated from the passed positions only, each a row of the weights added to a
// channels-last [Cin] vector: for the patch encoder's 3 x 3 pool, a ninth of the multiply-adds,
// and no zeroed map. The forward pass is ATen's convolution and one pass of pooling and ReLU,
// channels last (the layout oneDNN convolves without reordering).
// Contiguous float CPU tensors take the fused loops; anything else (CUDA, double) ATen.
// Engine header: includes LibTorch.

#include <cstdint>

#include <torch/types.h>

namespace saccade {

/// x [B, Cin, H, W]; weight [Cout, Cin, kh, kw] (odd), bias [Cout]; stride 1, zero `padding`;
/// then a `kernel` x `kernel` max-pool of stride `kernel` (trailing rows and columns dropped, as
/// max_pool2d does) and ReLU. Returns [B, Cout, H' / kernel, W' / kernel] (H', W' the
/// convolution's output size) with channels-last strides; differentiable in x, weight and bias. A window's gradient goes to
/// its first maximum, as max_pool2d's does; a maximum <= 0 passes none.
torch::Tensor convMaxPoolRelu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                              std::int64_t padding, std::int64_t kernel);

/// The same in ATen operations (the reference the fused loops are tested against).
torch::Tensor convMaxPoolReluReference(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                       std::int64_t padding, std::int64_t kernel);

}  // namespace saccade
