#include "attention/attention_variants.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <torch/torch.h>

#include "attention/variant_kernels.h"

namespace saccade {
namespace {

struct VariantEntry {
    AttentionVariant variant;
    const char* name;
};

constexpr VariantEntry kVariants[] = {
    {AttentionVariant::Full, "full"},           {AttentionVariant::MemoryEfficient, "memory_efficient"},
    {AttentionVariant::Local, "local"},         {AttentionVariant::BlockSparse, "block_sparse"},
    {AttentionVariant::TopK, "top_k"},          {AttentionVariant::Linear, "linear"},
    {AttentionVariant::Performer, "performer"},
};

bool selfOnly(AttentionVariant v) { return v == AttentionVariant::Local || v == AttentionVariant::BlockSparse; }

std::int64_t blocks(std::int64_t n, std::int64_t size) { return (n + size - 1) / size; }

void checkShapes(AttentionVariant variant, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                 const torch::Tensor& keep, const VariantOptions& options) {
    TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, "attention: q, k and v must be [B, H, length, width]");
    TORCH_CHECK(k.size(0) == q.size(0) && k.size(1) == q.size(1) && k.size(3) == q.size(3),
                "attention: keys must match the queries' batch, heads and width");
    TORCH_CHECK(v.size(0) == k.size(0) && v.size(1) == k.size(1) && v.size(2) == k.size(2),
                "attention: values must match the keys' batch, heads and length");
    TORCH_CHECK(!keep.defined() || (keep.dim() == 2 && keep.size(0) == q.size(0) && keep.size(1) == k.size(2) &&
                                    keep.scalar_type() == torch::kBool),
                "attention: the key mask must be bool [B, M]");
    const auto problem = checkVariantOptions(variant, options, q.size(2), k.size(2));
    TORCH_CHECK(problem.empty(), problem);
}

/// Scores [B, H, N, M] scaled by 1/sqrt(d), masked keys at maskedScore.
torch::Tensor scaledScores(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& keep) {
    auto s = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(q.size(3)));
    if (keep.defined())
        s = s.masked_fill(keep.logical_not().unsqueeze(1).unsqueeze(1), variants::maskedScore(q.scalar_type()));
    return s;
}

torch::Tensor kernelWeights(const torch::Tensor& phiQ, const torch::Tensor& phiK, const torch::Tensor& keep) {
    auto a = torch::matmul(phiQ, phiK.transpose(-2, -1));
    if (keep.defined()) a = a * keep.view({keep.size(0), 1, 1, -1}).to(a.scalar_type());
    return a / a.sum(-1, true).clamp_min(variants::kernelFloor(a.scalar_type()));
}

}  // namespace

const std::vector<AttentionVariant>& allAttentionVariants() {
    static const std::vector<AttentionVariant> all = [] {
        std::vector<AttentionVariant> v;
        for (const auto& e : kVariants) v.push_back(e.variant);
        return v;
    }();
    return all;
}

std::string attentionVariantName(AttentionVariant variant) {
    for (const auto& e : kVariants)
        if (e.variant == variant) return e.name;
    return "?";
}

Result<AttentionVariant> parseAttentionVariant(const std::string& name) {
    std::string canonical = name;
    std::replace(canonical.begin(), canonical.end(), '-', '_');
    std::string names;
    for (const auto& e : kVariants) {
        if (canonical == e.name) return e.variant;
        names += names.empty() ? e.name : std::string(", ") + e.name;
    }
    return Error{"unknown attention variant '" + name + "' (expected one of: " + names + ")"};
}

bool isExactVariant(AttentionVariant variant) {
    return variant == AttentionVariant::Full || variant == AttentionVariant::MemoryEfficient;
}

std::string checkVariantOptions(AttentionVariant variant, const VariantOptions& o, std::int64_t n, std::int64_t m) {
    std::ostringstream msg;
    if (n < 1 || m < 1) msg << "lengths must be at least 1 (got " << n << " queries, " << m << " keys)";
    else if (selfOnly(variant) && n != m)
        msg << attentionVariantName(variant) << " is self-attention: it needs as many keys as queries (" << n
            << " against " << m << ")";
    else if (variant == AttentionVariant::Local && (o.window < 1 || o.window > n))
        msg << "window " << o.window << " does not fit length " << n << " (it must be 1 to " << n << ")";
    else if (variant == AttentionVariant::BlockSparse && (o.block < 1 || o.block > n))
        msg << "block " << o.block << " does not fit length " << n << " (it must be 1 to " << n << ")";
    else if (variant == AttentionVariant::BlockSparse && (o.summary < 1 || o.summary > o.block))
        msg << "summary " << o.summary << " must be 1 to the block length " << o.block;
    else if (variant == AttentionVariant::TopK && (o.topK < 1 || o.topK > m))
        msg << "k = " << o.topK << " must be 1 to the key count " << m;
    else if (variant == AttentionVariant::Performer && o.features < 1)
        msg << "the performer needs at least 1 random feature (got " << o.features << ")";
    else if ((variant == AttentionVariant::MemoryEfficient || variant == AttentionVariant::TopK) && o.tile < 1)
        msg << "tile " << o.tile << " must be at least 1";
    return msg.str();
}

double variantWorkingBytes(AttentionVariant variant, const VariantOptions& o, std::int64_t bhInt, std::int64_t nInt,
                           std::int64_t mInt, std::int64_t dInt, bool backward) {
    const double f = 4;  // float32
    const double copies = backward ? 4 : 2;  // scores and probabilities, and their gradients
    const double bh = double(bhInt), n = double(nInt), m = double(mInt), d = double(dInt);
    switch (variant) {
        case AttentionVariant::Full: return copies * bh * n * m * f + 2 * bh * n * d * f;
        case AttentionVariant::MemoryEfficient: {
            const double t = double(std::min(o.tile, std::max(nInt, mInt)));
            return 3 * bh * t * t * f + (backward ? 3 : 1) * bh * (n + m) * d * f + 2 * bh * n * f;
        }
        case AttentionVariant::Local: {
            const double total = double(blocks(nInt, o.window) * o.window), w = double(o.window);
            return copies * bh * total * 3 * w * f + 4 * bh * (total + 2 * w) * d * f;
        }
        case AttentionVariant::BlockSparse: {
            const double nb = double(blocks(nInt, o.block)), total = nb * double(o.block);
            return (copies + 1) * bh * total * (double(o.block) + nb * double(o.summary)) * f + 4 * bh * total * d * f;
        }
        case AttentionVariant::TopK: {
            const double t = double(std::min(o.tile, nInt));
            return copies * bh * t * m * f + bh * n * double(o.topK) * (d + 3) * f * (backward ? 2 : 1);
        }
        case AttentionVariant::Linear: return copies * bh * (n + m) * d * f + bh * d * d * f;
        case AttentionVariant::Performer: {
            const double features = double(o.features);
            return (copies + 1) * bh * (n + m) * features * f + bh * features * d * f;
        }
    }
    return 0;
}

torch::Tensor attendVariant(AttentionVariant variant, const torch::Tensor& q, const torch::Tensor& k,
                            const torch::Tensor& v, const torch::Tensor& keep, const VariantOptions& o) {
    checkShapes(variant, q, k, v, keep, o);
    if (keep.defined()) TORCH_CHECK(keep.any(1).all().item<bool>(), "attention: every row needs at least one key kept");
    switch (variant) {
        case AttentionVariant::Full: return variants::full(q, k, v, keep);
        case AttentionVariant::MemoryEfficient: return variants::memoryEfficient(q, k, v, keep, o.tile);
        case AttentionVariant::Local: return variants::local(q, k, v, keep, o.window);
        case AttentionVariant::BlockSparse: return variants::blockSparse(q, k, v, keep, o.block, o.summary);
        case AttentionVariant::TopK: return variants::topK(q, k, v, keep, o.topK, o.tile);
        case AttentionVariant::Linear:
            return variants::kernelAttention(variants::linearFeatures(q), variants::linearFeatures(k), v, keep);
        case AttentionVariant::Performer:
            return variants::kernelAttention(variants::performerFeatures(q, o.features, o.seed, true),
                                             variants::performerFeatures(k, o.features, o.seed, false, keep), v, keep);
    }
    TORCH_CHECK(false, "attention: unknown variant");
}

torch::Tensor variantPattern(AttentionVariant variant, std::int64_t n, std::int64_t m, const VariantOptions& o) {
    return variantPatternRows(variant, torch::arange(n, torch::kLong), m, o);
}

torch::Tensor variantPatternRows(AttentionVariant variant, const torch::Tensor& rows, std::int64_t m,
                                 const VariantOptions& o) {
    const auto i = rows.to(torch::kLong).unsqueeze(1), j = torch::arange(m, torch::kLong).unsqueeze(0);
    const auto n = rows.size(0);
    switch (variant) {
        case AttentionVariant::Local: return (i - j).abs() <= o.window;
        case AttentionVariant::BlockSparse:
            return (i.div(o.block, "floor") == j.div(o.block, "floor")) | (j.remainder(o.block) >= o.block - o.summary);
        default: return torch::ones({n, m}, torch::kBool);
    }
}

torch::Tensor variantWeights(AttentionVariant variant, const torch::Tensor& q, const torch::Tensor& k,
                             const torch::Tensor& keep, const VariantOptions& o) {
    return variantWeightRows(variant, q, k, keep, o, 0, q.size(2));
}

torch::Tensor variantWeightRows(AttentionVariant variant, const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& keep, const VariantOptions& o, std::int64_t r0, std::int64_t r1) {
    checkShapes(variant, q, k, k, keep, o);
    TORCH_CHECK(0 <= r0 && r0 < r1 && r1 <= q.size(2), "attention: rows out of range");
    const auto rows = q.narrow(2, r0, r1 - r0);
    switch (variant) {
        case AttentionVariant::Linear:
            return kernelWeights(variants::linearFeatures(rows), variants::linearFeatures(k), keep);
        case AttentionVariant::Performer:  // queries are stabilised per row, so a slice has the same features
            return kernelWeights(variants::performerFeatures(rows, o.features, o.seed, true),
                                 variants::performerFeatures(k, o.features, o.seed, false, keep), keep);
        case AttentionVariant::TopK: {
            const auto s = scaledScores(rows, k, keep);
            auto [values, index] = s.topk(o.topK, -1);
            return torch::zeros_like(s).scatter(-1, index, torch::softmax(values, -1));
        }
        default: {
            auto s = scaledScores(rows, k, keep);
            const auto positions = torch::arange(r0, r1, torch::kLong);
            const auto allowed = variantPatternRows(variant, positions, k.size(2), o).to(q.device());
            s = s.masked_fill(allowed.logical_not(), variants::maskedScore(q.scalar_type()));
            return torch::softmax(s, -1);
        }
    }
}

double variantForwardFlops(AttentionVariant variant, const VariantOptions& o, std::int64_t bh, std::int64_t n,
                           std::int64_t m, std::int64_t d) {
    const double b = double(bh);
    switch (variant) {
        case AttentionVariant::Full:
        case AttentionVariant::MemoryEfficient: return 4.0 * b * n * m * d;
        case AttentionVariant::Local: return 4.0 * b * blocks(n, o.window) * o.window * 3.0 * o.window * d;
        case AttentionVariant::BlockSparse: {
            const auto nb = blocks(n, o.block);
            return 4.0 * b * nb * o.block * double(o.block + nb * o.summary) * d;
        }
        case AttentionVariant::TopK: return 2.0 * b * n * m * d + 2.0 * b * n * o.topK * d;
        case AttentionVariant::Linear: return 2.0 * b * (m + 2.0 * n) * d * d;
        case AttentionVariant::Performer: return 2.0 * b * (n + m) * o.features * d + 2.0 * b * (m + 2.0 * n) * o.features * d;
    }
    return 0;
}

}  // namespace saccade
