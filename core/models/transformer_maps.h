#pragma once
// Attention maps of a vision transformer, native or imported: from the attention weights of one
// image, [layers, heads, tokens, tokens], the patch grid's map per layer under a view:
//   attention  the mean over heads of the query token's attention over the patches (raw attention)
//   head:K     head K's alone (K from 0)
//   rollout    attention rollout (Abnar and Zuidema 2020): per layer, A' = (mean over heads + I) / 2
//              with rows renormalised, multiplied through the layers so far; its query row
// The query token is the read-out token where the model has prefix tokens (token 0, a CLS token,
// unless it declares another), else the mean over all tokens' rows. The prefix columns are
// dropped and the patch weights renormalised to sum to 1, so each map is a distribution over the grid. Engine header: includes LibTorch.

#include <optional>
#include <string>
#include <utility>

#include <torch/types.h>

#include "common/result.h"
#include "trace/trace.h"

namespace saccade {

/// The patch grid behind a transformer's tokens: `prefix` tokens first (a CLS token, registers, a
/// distillation token), then rows x cols patches. With a prefix, token `readout` is the query
/// whose row is the map; without one, the mean of all rows is.
struct TokenGrid {
    int rows = 0, cols = 0;
    int prefix = 0;
    int readout = 0;
    int tokens() const { return rows * cols + prefix; }
};

/// The grid of `tokens` tokens. With `prefix` >= 0 (declared), the patches are the tokens after
/// it; else the prefix is inferred: none or one (a CLS token). The patches are the given rows x
/// cols, or else a square. An Error says why nothing fits, and names the settings that would.
Result<TokenGrid> tokenGrid(std::int64_t tokens, std::optional<std::pair<int, int>> given = std::nullopt, int prefix = -1,
                            int readout = 0);

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
