#pragma once
// The forward passes behind attendVariant() (attention_variants.h), one per variant. Shapes as
// there: q [B, H, N, d], k [B, H, M, d], v [B, H, M, dv], keep [B, M] bool or undefined. The
// options are checked by the caller. Engine header: includes LibTorch.

#include <cstdint>

#include <torch/types.h>

namespace saccade::variants {

/// A finite score that masks a key (exp() of it minus any real score is 0) without the NaN that
/// -inf gives a row whose keys are all masked (padding rows of the block layouts).
double maskedScore(torch::ScalarType dtype);

torch::Tensor full(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& keep);
/// Tiled with an online softmax; its own backward pass (memory_efficient_attention.cpp).
torch::Tensor memoryEfficient(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& keep, std::int64_t tile);
torch::Tensor local(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& keep,
                    std::int64_t window);
torch::Tensor blockSparse(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& keep, std::int64_t block, std::int64_t summary);
torch::Tensor topK(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& keep,
                   std::int64_t topK, std::int64_t tile);

/// The feature maps of the kernel variants, [B, H, N, F], masked keys' rows zero.
torch::Tensor linearFeatures(const torch::Tensor& x);
/// FAVOR+ features of queries (isQuery: stabilised per row) or keys (per batch and head, over
/// the kept keys of `keep` [B, M] when it is given).
torch::Tensor performerFeatures(const torch::Tensor& x, std::int64_t features, std::uint64_t seed, bool isQuery,
                                const torch::Tensor& keep = {});
/// The smallest denominator a kernel row may have in this dtype (a row of zeros stays finite).
double kernelFloor(torch::ScalarType dtype);
/// out_i = phi_q_i^T sum_j phi_k_j v_j^T / phi_q_i^T sum_j phi_k_j, with keep applied to phi_k.
torch::Tensor kernelAttention(const torch::Tensor& phiQ, const torch::Tensor& phiK, const torch::Tensor& v,
                              const torch::Tensor& keep);

}  // namespace saccade::variants
