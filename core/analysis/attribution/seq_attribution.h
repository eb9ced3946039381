#pragma once
// Attribution over a source sentence, per output token (issue 37; after Inseq's methods): for each
// target token t (and the </s> after them), read with the decoder teacher-forced along the target, a map over the source
// tokens of what its logit (the score before the softmax) owes to each of them, beside the
// decoder's attention at that step. The input differentiated is each source token's embedding row
// (models/seq_gradient_forward.h); a token's value is over the row's dimensions:
// - attention:             the attention the step's context was made from (a Transformer's: the last
//   layer's cross-attention, mean over heads).
// - rollout:               Transformers: the last cross-attention through the encoder's rollout
//   (Abnar and Zuidema 2020).
// - gradient:              the L2 norm of d logit_t / d row_s (Inseq's saliency).
// - gradient-x-input:      the dot product of that gradient with the row.
// - integrated-gradients:  the dot product of (row - baseline) with the mean gradient along the
//   straight path from a baseline (every token's row the <unk> row, or 0; a Transformer's positions stay),
//   the path's points batched (Sundararajan et al. 2017). completenessError says how far each
//   step's sum is from f_t(x) - f_t(baseline), relative to it.
// - occlusion:             the fall of the probability of target token t when token s's row is the
//   <unk> row.
// A map's row is its magnitude (|value|; occlusion's fall, negative as 0), normalised to sum 1.
// Not thread-safe: one caller of the model at a time. Plain types.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "trace/seq_translation.h"

namespace saccade {

class SeqGradientForward;  // models/seq_gradient_forward.h (an engine header)
class Translator;          // models/translator.h

/// The method names for sentences, in the order a user sees them.
const std::vector<std::string>& seqAttributionMethods();

/// An unknown method, or one the model cannot give (rollout without layers): one line.
Result<Unit> checkSeqMethod(const std::string& method, const SeqGradientForward& f);

struct SeqAttributionOptions {
    std::string method = "integrated-gradients";
    std::string rule;  ///< one of f.rules(); empty: the model's own
    int steps = 64;    ///< integrated gradients: intervals of the path (>= 1)
    std::string quadrature = "gauss-legendre";  ///< or trapezoid, midpoint (analysis/path_quadrature.h)
    /// Integrated gradients' start: "unknown" (every source row the <unk> row) or "zero" (every row
    /// 0). The zero rows are far from anything a Transformer was trained on: its logits swing by
    /// hundreds per unit of the path near them, and 64 steps do not integrate that (errors of 500%).
    std::string baseline = "unknown";
};

struct SeqAttribution {
    std::string method, rule;
    std::string baseline;  ///< integrated gradients' ("zero", "unknown"); else empty
    std::vector<std::string> source, target;     ///< target: the tokens explained, then "</s>"
    std::vector<std::vector<double>> rows;        ///< [target][source] magnitude, each row sums to 1 (0s: no signal)
    std::vector<std::vector<double>> signedRows;  ///< [target][source] the values before the magnitude
    std::vector<int> pointed;                     ///< each row's largest source token, -1 for a flat row
    /// Integrated gradients: per step f_t(x) - f_t(baseline) and the attributions' sum, and the
    /// mean relative error over the steps whose difference is not ~0.
    std::vector<double> difference, attributionSum;
    std::optional<double> completenessError;
    std::int64_t forwards = 0;  ///< sentences through the model
    double seconds = 0;
};

/// The map of `options.method` for `target` (the tokens to explain; usually the model's own
/// output) given `source`. Errors, one line each: an unknown or unsupported method, steps < 1, an
/// unknown quadrature, a rule the model cannot differentiate, an empty or too long sentence.
Result<SeqAttribution> attributeSentence(SeqGradientForward& f, const std::vector<std::string>& source,
                                         const std::vector<std::string>& target, const SeqAttributionOptions& options);

/// attributeSentence through the model's gradientForward(); a model without one (an import) is
/// an Error saying so.
Result<SeqAttribution> attributeTranslation(const Translator& model, const std::vector<std::string>& source,
                                            const std::vector<std::string>& target, const SeqAttributionOptions& options);

/// `t` (a translation of `a.source` whose tokens are `a.target`) seen through the map: its rows in
/// place of the alignment, the chosen tokens and local-p's centres dropped, the entropy the map's.
SeqTranslation withAttribution(const SeqTranslation& t, const SeqAttribution& a);

/// JSON (schema "saccade.seq-attribution", version 1); unmeasured figures are null.
std::string seqAttributionToJson(const SeqAttribution& a, int indent = 2);

}  // namespace saccade
