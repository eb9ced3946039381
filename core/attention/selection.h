#pragma once
// Selection rules over a categorical attention distribution. They are different procedures and
// are reported under their own names:
//   soft     expected context sum_i p_i v_i (no choice is made)
//   sample   one seeded multinoulli draw (inverse CDF of a uniform from saccade::Rng)
//   argmax   the most probable location (ties: the lowest index)
//   topk     the k most probable; context = their values weighted by renormalised p
//   ksample  K seeded draws with replacement; context = the mean of the K drawn values
//   gumbel   straight-through Gumbel-softmax at temperature tau: a one-hot forward pass whose
//            gradient is that of softmax((log p + g) / tau)
// Engine header: includes LibTorch.

#include <string>

#include <torch/types.h>

#include "common/result.h"
#include "common/rng.h"

namespace saccade {

enum class SelectionRule { Soft, Sample, Argmax, TopK, KSample, Gumbel };

/// Gumbel temperatures outside this range are refused everywhere (rule specs, the GUI, select()):
/// below it the scores divided by tau overflow float32.
constexpr double kMinGumbelTemperature = 1e-4;
constexpr double kMaxGumbelTemperature = 1e4;

struct SelectionOptions {
    SelectionRule rule = SelectionRule::Soft;
    std::int64_t k = 1;         ///< topk: k; ksample: K
    double temperature = 1.0;   ///< gumbel only; in [kMinGumbelTemperature, kMaxGumbelTemperature]
    bool checkFinite = true;    ///< refuse NaN scores (costs one device sync)
};

/// "soft", "sample", "argmax", "topk:K", "ksample:K", "gumbel:TAU" ("topk", "ksample" and
/// "gumbel" alone mean k = 1, K = 10 and tau = 1). Errors list the accepted spellings.
Result<SelectionOptions> parseSelectionRule(const std::string& spec);
/// The canonical spelling, e.g. "ksample:10".
std::string selectionRuleSpec(const SelectionOptions& options);
std::string selectionRuleName(SelectionRule rule);

/// What one selection step yields; every tensor is on the scores' device.
struct Selection {
    torch::Tensor probs;    ///< [B, L] the attention distribution softmax(scores)
    torch::Tensor indices;  ///< [B, K] int64 chosen locations (K = 0 for soft, k for topk/ksample)
    torch::Tensor weights;  ///< [B, L] the weights that formed the context (one-hot for sample)
    torch::Tensor context;  ///< [B, D] the context passed on
    /// [B] log-probability of the choice: log p_i for sample/argmax/gumbel, the sum of the K
    /// draws' log p for ksample, the log of the mass the chosen set covers for topk, 0 for soft.
    /// Differentiable w.r.t. the scores (the score-function term of REINFORCE).
    torch::Tensor logProb;
    torch::Tensor entropy;  ///< [B] entropy of probs in nats
};

/// scores [B, L] (-inf where masked), values [B, L, D]. Draws from `rng` only for sample,
/// ksample and gumbel, so the same seed gives the same choices on any device.
/// Throws c10::Error on shape mismatch, NaN scores or bad k / temperature.
Selection select(const torch::Tensor& scores, const torch::Tensor& values,
                 const SelectionOptions& options, Rng& rng);

/// Inverse-CDF categorical draws: probs [B, L], u [B, K] uniforms in [0,1) -> [B, K] int64.
/// Index i is chosen when u lies in [c_(i-1), c_i) of the cumulative sums (rescaled by the
/// row total), so zero-probability locations are never chosen.
torch::Tensor drawCategorical(const torch::Tensor& probs, const torch::Tensor& u);

}  // namespace saccade
