#pragma once
// Bahdanau's additive scores, e_bl = sum_a v_a tanh(q_ba + k_bla), in one pass over the keys:
// ATen builds the [B, L, A] sum and its tanh as two tensors per step (32 MB each for 1,000
// captions over 64 cells), and Sleef's tanh was a fifth of the captioner's profile. Here each
// row's tanh lives in registers; the backward pass recomputes it instead of storing it. Contiguous
// float CPU tensors take the fused loops; anything else (CUDA, double, strided keys) the same
// arithmetic in ATen operations.
// Engine header: includes LibTorch.

#include <torch/types.h>

namespace saccade {

/// query [B, A] (already projected), keys [B, L, A] (already projected; a batch stride of 0, as
/// from expand(), is allowed), v [A] or [1, A]. Returns [B, L]; differentiable in all three.
torch::Tensor additiveScores(const torch::Tensor& query, const torch::Tensor& keys, const torch::Tensor& v);

/// The same in ATen operations (the reference the fused loops are tested against).
torch::Tensor additiveScoresReference(const torch::Tensor& query, const torch::Tensor& keys, const torch::Tensor& v);

}  // namespace saccade
