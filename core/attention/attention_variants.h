#pragma once
// Attention at length: exact attention and the efficient variants that replace it on long inputs,
// each one procedure with its own name (none is reported as another):
//   full              softmax(q k^T / sqrt(d)) v, the N x M matrix held in memory
//   memory_efficient  the same numbers, computed tile by tile with an online softmax (the
//                     FlashAttention algorithm on any device): never more than a tile x tile block
//                     of scores; its backward pass recomputes the tiles from the saved row
//                     log-sum-exp instead of storing the matrix
//   local             sliding window: query i sees the keys j with |i - j| <= window
//   block_sparse      the Sparse Transformer's fixed pattern (Child et al. 2019): query i sees every
//                     key of its own block of `block` positions, and the last `summary` keys of
//                     every block (the summary columns), a softmax over that set
//   top_k             per query, the k highest-scoring keys, a softmax over those alone: a
//                     deterministic selection (hard attention's sample is one seeded draw)
//   linear            kernel attention (Katharopoulos et al. 2020): phi(x) = elu(x) + 1,
//                     out_i = phi(q_i)^T sum_j phi(k_j) v_j^T / phi(q_i)^T sum_j phi(k_j)
//   performer         FAVOR+ (Choromanski et al. 2021): positive orthogonal random features of
//                     exp(q.k / sqrt(d)), drawn from `seed`, in the linear form above
// Every variant takes a batch of heads, a key mask, any device and floating dtype, and is
// differentiable in q, k and v. local and block_sparse are self-attention patterns (N == M).
// Engine header: includes LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "common/result.h"

namespace saccade {

enum class AttentionVariant { Full, MemoryEfficient, Local, BlockSparse, TopK, Linear, Performer };

/// Every variant, in the order the benchmark, the JSON and the views list them.
const std::vector<AttentionVariant>& allAttentionVariants();
/// "full", "memory_efficient", "local", "block_sparse", "top_k", "linear", "performer".
std::string attentionVariantName(AttentionVariant variant);
/// The name above (or with '-' for '_'); an Error lists the names.
Result<AttentionVariant> parseAttentionVariant(const std::string& name);
/// Whether the variant computes exactly what full attention computes (up to rounding).
bool isExactVariant(AttentionVariant variant);

struct VariantOptions {
    std::int64_t window = 64;     ///< local: keys within this distance of the query, >= 1
    std::int64_t block = 64;      ///< block_sparse: block length, >= 1
    std::int64_t summary = 4;     ///< block_sparse: summary keys per block, 1..block
    std::int64_t topK = 32;       ///< top_k: keys kept per query, 1..M
    std::int64_t features = 128;  ///< performer: random features, >= 1
    std::int64_t tile = 512;      ///< memory_efficient and top_k: rows (and keys) per tile, >= 1
    std::uint64_t seed = 0;       ///< performer: the random features' seed
};

/// One line saying what is wrong with `options` for `variant` at query length n and key length m
/// (a window or block larger than n, k = 0 or k > m, no features, ...); empty when they fit.
std::string checkVariantOptions(AttentionVariant variant, const VariantOptions& options, std::int64_t n,
                                std::int64_t m);

/// Bytes the variant's forward pass allocates beyond its inputs and output for `batchHeads`
/// heads of n queries and m keys of width d (an upper estimate from the shapes, used to refuse
/// lengths that cannot fit before anything is allocated).
double variantWorkingBytes(AttentionVariant variant, const VariantOptions& options, std::int64_t batchHeads,
                           std::int64_t n, std::int64_t m, std::int64_t d, bool backward);

/// q [B, H, N, d], k [B, H, M, d], v [B, H, M, dv]; keep [B, M] bool (true: the key may be
/// attended) or undefined for all keys; every row must keep at least one key. Returns
/// [B, H, N, dv]. Throws c10::Error on bad shapes or options (checkVariantOptions first).
torch::Tensor attendVariant(AttentionVariant variant, const torch::Tensor& q, const torch::Tensor& k,
                            const torch::Tensor& v, const torch::Tensor& keep, const VariantOptions& options);

/// The attention matrix the variant applies, [B, H, N, M], each row summing to 1 (rows of the
/// kernel variants are their normalised feature products). Explicit: for small N and M only.
torch::Tensor variantWeights(AttentionVariant variant, const torch::Tensor& q, const torch::Tensor& k,
                             const torch::Tensor& keep, const VariantOptions& options);

/// Rows [rowBegin, rowEnd) of variantWeights(...), [B, H, rowEnd - rowBegin, M]: the same numbers
/// without the N x M matrix, for long inputs.
torch::Tensor variantWeightRows(AttentionVariant variant, const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& keep, const VariantOptions& options, std::int64_t rowBegin,
                                std::int64_t rowEnd);

/// The keys each query may attend to, [N, M] bool, for the patterned variants (full,
/// memory_efficient, local, block_sparse; the kernel variants see every key). top_k's pattern
/// depends on the data: variantWeights(...) > 0.
torch::Tensor variantPattern(AttentionVariant variant, std::int64_t n, std::int64_t m, const VariantOptions& options);
/// The same for the query positions in `rows` (int64 [S]): [S, M] bool.
torch::Tensor variantPatternRows(AttentionVariant variant, const torch::Tensor& rows, std::int64_t m,
                                 const VariantOptions& options);

/// Floating-point operations of one forward pass, counted from the shapes of what the variant
/// computes (two per multiply-add of its matrix products; softmax and feature maps not counted).
double variantForwardFlops(AttentionVariant variant, const VariantOptions& options, std::int64_t batchHeads,
                           std::int64_t n, std::int64_t m, std::int64_t d);

}  // namespace saccade
