#pragma once
// Attention maps of a vision transformer, native or imported: from the attention weights of one
// image, [layers, heads, tokens, tokens], the patch grid's map per layer under a view:
//   attention  the mean over heads of the query token's attention over the patches (raw attention)
//   head:K     head K's alone (K from 0)
//   rollout    attention rollout (Abnar and Zuidema 2020): per layer, A' = (mean over heads + I) / 2
//              with rows renormalised, multiplied through the layers so far; its query row
// The query token is the CLS token where the model has one (token 0), else the mean over all
// tokens' rows. The CLS column is dropped and the patch weights renormalised to sum to 1, so each
// map is a distribution over the grid. Engine header: includes LibTorch.

#include <optional>
#include <string>
#include <utility>

#include <torch/types.h>

#include "common/result.h"
#include "trace/trace.h"

namespace saccade {

/// The patch grid behind a transformer's tokens: rows x cols patches, plus token 0 when `cls`.
struct TokenGrid {
    int rows = 0, cols = 0;
    bool cls = false;
    int tokens() const { return rows * cols + (cls ? 1 : 0); }
};

/// The grid of `tokens` tokens: the given rows x cols (with a CLS token when there is one more
/// token than patches), or else a square grid of tokens or tokens - 1 patches. An Error says why
/// neither fits.
Result<TokenGrid> tokenGrid(std::int64_t tokens, std::optional<std::pair<int, int>> given = std::nullopt);

enum class TransformerView { Attention, Head, Rollout };

struct TransformerRule {
    TransformerView view = TransformerView::Attention;
    int head = 0;      ///< for Head
    std::string spec;  ///< canonical spelling: attention, rollout or head:K
};

/// Parses attention, rollout or head:K (0 <= K < heads); anything else is an Error that lists them.
Result<TransformerRule> parseTransformerRule(const std::string& rule, int heads);

/// Per layer, the map over the grid under `rule`: [layers, rows * cols], each row summing to 1.
/// `attentions` is one image's [layers, heads, tokens, tokens] (any device and floating dtype).
torch::Tensor transformerMaps(const torch::Tensor& attentions, const TokenGrid& grid, const TransformerRule& rule);

/// A transformer's trace steps, one per layer: the map under `rule` and its entropy.
std::vector<TraceStep> transformerSteps(const torch::Tensor& attentions, const TokenGrid& grid, const TransformerRule& rule);

}  // namespace saccade
