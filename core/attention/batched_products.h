#pragma once
// The two products attention makes per step, for every row of a batch: each key against its
// query (dot, general and scaled-dot scores) and the weighted sum of the values (the context).
// torch::bmm runs them as one tiny matrix product per row; at 1,000 rows of 24 keys that is
// 1,000 BLAS calls per step. On contiguous float CPU tensors these are vectorised loops, with
// gradients too (one autograd node each, whose backward is the same loops); otherwise (CUDA,
// double, strided) they are bmm.
// Engine header: includes LibTorch.

#include <torch/types.h>

namespace saccade {

/// rows [B, R, C] (a batch stride of 0, as from expand(), is allowed), vec [B, C] -> [B, R].
torch::Tensor rowsDotVector(const torch::Tensor& rows, const torch::Tensor& vec);

/// weights [B, R], rows [B, R, C] (batch stride 0 allowed) -> [B, C]: sum_r weights_r rows_r.
torch::Tensor weightedRows(const torch::Tensor& weights, const torch::Tensor& rows);

/// Whether rowsDotVector and weightedRows take their loops (not bmm) for these operands, with or
/// without gradients.
bool batchedProductsFused(const torch::Tensor& rows, const torch::Tensor& other);

}  // namespace saccade
