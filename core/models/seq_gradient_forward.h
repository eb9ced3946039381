#pragma once
// SeqGradientForward: what attribution methods over a source sentence (analysis/seq_attribution.h)
// ask of a sequence model: the source's embedding rows, and the decoder's word logits along a given
// target (teacher forcing) from any rows in their place, in a graph autograd can differentiate
// with respect to them; for the model-randomisation sanity check (analysis/seq_sanity_check.h), its
// parameters grouped by layer from the output down. A translator hands one out through
// Translator::gradientForward(); the methods never ask which family it is. Engine header: includes
// LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "common/result.h"
#include "models/gradient_forward.h"  // ParameterGroup

namespace saccade {

/// One sentence pair as the model reads it.
struct SeqForcedInput {
    torch::Tensor source;                 ///< [1, S] int64 ids (unknown tokens as <unk>)
    torch::Tensor embedded;               ///< [1, S, E] the source's embedding rows, no graph
    torch::Tensor unknown;                ///< [E] the <unk> row: what occlusion puts in a token's place
    torch::Tensor input;                  ///< [1, T + 1]: <s>, then the T target tokens
    std::vector<std::int64_t> targetIds;  ///< what each of the T + 1 steps predicts: the target's ids, then </s>
};

/// The decoder along the target: step t reads input[:, t] and predicts target token t.
struct SeqForcedOutput {
    torch::Tensor logits;  ///< [B, T + 1, V]
    torch::Tensor alpha;   ///< [B, T + 1, S] the attention each step's context was made from
    /// Transformers: every layer's and head's cross-attention [B, L, H, T + 1, S] and the
    /// encoder's self-attention [B, L, H, S, S]; undefined for recurrent models.
    torch::Tensor cross, encoderSelf;
};

class SeqGradientForward {
public:
    virtual ~SeqGradientForward() = default;
    /// The deterministic rules it differentiates ("soft", "argmax"), the model's own first.
    virtual std::vector<std::string> rules() const = 0;
    /// Whether forced() gives the layers' attention (cross and encoderSelf), for rollout.
    virtual bool hasLayerAttention() const = 0;
    /// `source` and `target` tokens (no specials) as ids and rows. Errors: an empty side, a source
    /// longer than 200 tokens.
    virtual Result<SeqForcedInput> prepare(const std::vector<std::string>& source,
                                           const std::vector<std::string>& target) = 0;
    /// The decoder fed `input` [B, T + 1] over the source read from `embedded` [B, S, E] in place
    /// of the rows of `source` [B, S] (every row S tokens), under `rule` (one of rules(); another
    /// raises c10::Error). The graph reaches `embedded` and no weight. Not thread-safe.
    virtual SeqForcedOutput forced(const torch::Tensor& embedded, const torch::Tensor& source,
                                   const torch::Tensor& input, const std::string& rule) = 0;
    /// The network's parameters by layer, the output layer first and the source embedding table
    /// last (writing them writes the model); empty (the default): no sanity check.
    virtual std::vector<ParameterGroup> parameterGroups() { return {}; }
    /// Tells the model its weights were written, so that it drops what it cached from them.
    virtual void weightsChanged() {}
};

}  // namespace saccade
