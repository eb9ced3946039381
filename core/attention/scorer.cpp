#include "attention/scorer.h"

#include <cmath>

#include <torch/torch.h>

#include "attention/additive_scores.h"
#include "attention/batched_products.h"
#include "attention/packed_linear.h"

namespace saccade {

namespace {
struct KindName {
    ScorerKind kind;
    const char* name;
};
constexpr KindName kKinds[] = {{ScorerKind::Additive, "additive"},
                               {ScorerKind::Dot, "dot"},
                               {ScorerKind::General, "general"},
                               {ScorerKind::ScaledDot, "scaled-dot"}};
}  // namespace

Result<ScorerKind> parseScorerKind(const std::string& name) {
    for (const auto& k : kKinds)
        if (name == k.name) return k.kind;
    return Error{"unknown scorer '" + name + "' (use additive, dot, general or scaled-dot)"};
}

std::string scorerKindName(ScorerKind kind) {
    for (const auto& k : kKinds)
        if (kind == k.kind) return k.name;
    return "?";
}

ScorerImpl::ScorerImpl(const ScorerOptions& options) : m_options(options) {
    TORCH_CHECK(options.queryDim > 0 && options.keyDim > 0,
                "scorer dimensions must be positive, got queryDim=", options.queryDim,
                " keyDim=", options.keyDim);
    switch (options.kind) {
        case ScorerKind::Additive:
            TORCH_CHECK(options.hiddenDim > 0, "additive scorer needs hiddenDim > 0");
            m_queryProj = register_module(
                "W", torch::nn::Linear(
                         torch::nn::LinearOptions(options.queryDim, options.hiddenDim).bias(false)));
            m_keyProj = register_module(
                "U", torch::nn::Linear(torch::nn::LinearOptions(options.keyDim, options.hiddenDim)));
            m_v = register_module(
                "v", torch::nn::Linear(torch::nn::LinearOptions(options.hiddenDim, 1).bias(false)));
            break;
        case ScorerKind::General:
            m_keyProj = register_module(
                "W", torch::nn::Linear(
                         torch::nn::LinearOptions(options.keyDim, options.queryDim).bias(false)));
            break;
        case ScorerKind::Dot:
        case ScorerKind::ScaledDot:
            TORCH_CHECK(options.queryDim == options.keyDim, scorerKindName(options.kind),
                        " scorer needs queryDim == keyDim, got ", options.queryDim, " and ",
                        options.keyDim);
            break;
    }
}

torch::Tensor ScorerImpl::forward(const torch::Tensor& query, const torch::Tensor& keys,
                                  const torch::Tensor& mask) {
    TORCH_CHECK(keys.dim() == 3, "keys must be [B, L, Dk], got ", keys.sizes());
    TORCH_CHECK(keys.size(2) == m_options.keyDim, "keys have ", keys.size(2),
                " features, scorer expects ", m_options.keyDim);
    return forwardPrepared(query, prepareKeys(keys), mask);
}

torch::Tensor ScorerImpl::prepareKeys(const torch::Tensor& keys) {
    TORCH_CHECK(keys.dim() == 3 && keys.size(2) == m_options.keyDim, "keys must be [B, L, ",
                m_options.keyDim, "], got ", keys.sizes());
    TORCH_CHECK(keys.size(1) > 0, "keys hold no locations");
    // General keeps the keys as they are: k^T W q is computed as k . (W q) per query, which costs
    // Q x K per query instead of per key (a source or a grid has more keys than a decoder has steps).
    if (m_options.kind != ScorerKind::Additive) return keys;
    if (!keys.is_contiguous()) return m_keyProj(keys);
    const auto rows = keys.reshape({-1, keys.size(2)});
    return packedLinear(rows, m_keyProj->weight, m_keyProj->bias).view({keys.size(0), keys.size(1), m_keyProj->weight.size(0)});
}

torch::Tensor ScorerImpl::forwardPrepared(const torch::Tensor& query, const torch::Tensor& prepared,
                                          const torch::Tensor& mask) {
    TORCH_CHECK(query.dim() == 2, "query must be [B, Dq], got ", query.sizes());
    TORCH_CHECK(prepared.dim() == 3, "keys must be [B, L, Dk], got ", prepared.sizes());
    TORCH_CHECK(query.size(0) == prepared.size(0), "batch mismatch: query ", query.sizes(),
                ", keys ", prepared.sizes());
    TORCH_CHECK(query.size(1) == m_options.queryDim, "query has ", query.size(1),
                " features, scorer expects ", m_options.queryDim);

    torch::Tensor scores;
    switch (m_options.kind) {
        case ScorerKind::Additive:
            scores = additiveScores(packedLinear(query, m_queryProj->weight), prepared, m_v->weight);
            break;
        case ScorerKind::General:  // W is [Q, K]: q W is the query in key space
            scores = rowsDotVector(prepared, packedMm(query, m_keyProj->weight));
            break;
        case ScorerKind::Dot:
            scores = rowsDotVector(prepared, query);
            break;
        case ScorerKind::ScaledDot:
            scores = rowsDotVector(prepared, query) /
                     std::sqrt(static_cast<double>(m_options.keyDim));
            break;
    }
    if (mask.defined()) {
        TORCH_CHECK(mask.sizes() == scores.sizes(), "mask must be [B, L] = ", scores.sizes(),
                    ", got ", mask.sizes());
        const auto keep = mask.to(torch::kBool);
        TORCH_CHECK(keep.any(/*dim=*/1).all().item<bool>(),
                    "mask leaves a row with no location to attend");
        scores = scores.masked_fill(keep.logical_not(), -std::numeric_limits<float>::infinity());
    }
    return scores;
}

}  // namespace saccade
