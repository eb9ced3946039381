#pragma once
// The GRU's gate arithmetic in one pass (the matrix products stay with the caller):
//   r = sigmoid(a_r + b_r), z = sigmoid(a_z + b_z), n = tanh(a_n + r * b_n),
//   h' = keep * ((1 - z) * n + z * h)
// with a = W_ih x + b_ih and b = W_hh h + b_hh, each [B, 3H] in PyTorch's gate order (r, z, n).
// ATen's GRU cell spends eight kernels and eight autograd nodes on this per step; at a batch of
// 64 or a hidden size of 128 those dominate the step. Here it is one loop forward and one loop
// backward (its own autograd node) on contiguous float CPU tensors, and the same arithmetic in
// ATen operations anywhere else (CUDA, double, strided views).
// Engine header: includes LibTorch.

#include <torch/types.h>

namespace saccade {

/// a, b [B, 3H]; h [B, H]; keep [B] (1 keeps the new state, 0 zeroes it: a padded position) or
/// undefined. Differentiable in a, b and h.
torch::Tensor gruGates(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h,
                       const torch::Tensor& keep = {});

/// The same arithmetic as eight ATen operations (the reference the fused loop is tested against).
torch::Tensor gruGatesReference(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h,
                                const torch::Tensor& keep = {});

}  // namespace saccade
