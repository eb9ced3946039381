#pragma once
// A one-layer bidirectional torch::nn::GRU run step by step with the fused gates (rnn_gates.h),
// reading the module's own parameters, so checkpoints are unchanged. The input gates of every
// source position come from a table over the vocabulary (W_ih E + b_ih, one row per token)
// instead of a product per position, and a padded position leaves a zero state behind it, which
// is what packing gives: the backward direction of a row starts at its last real token.
// Engine header: includes LibTorch.

#include <torch/nn/modules/rnn.h>
#include <torch/types.h>

namespace saccade {

/// source [B, S] int64 ids; embedding [V, E]; mask [B, S] bool (true at real tokens) or undefined
/// when no row is padded. Returns the outputs [B, S, 2H] (forward then backward direction), zero
/// at padding; differentiable in the GRU's parameters and the embedding.
torch::Tensor bidirectionalGru(const torch::nn::GRU& gru, const torch::Tensor& embedding, const torch::Tensor& source,
                               const torch::Tensor& mask);

}  // namespace saccade
