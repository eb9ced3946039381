#pragma once
// One-sample gradient estimates of d E[r] / d logits for a categorical softmax(logits) with a
// known reward per category, made by the engine itself: draws and relaxations come from select(),
// gradients from autograd. Each function returns [N, L]: row n is the estimate from draw n alone,
// so the rows' mean, variance and histogram are those of the one-sample estimator.
//   score function (REINFORCE)   (r_n - b_n) grad log p(i_n), through reinforceLoss
//   straight-through Gumbel      grad of r . y_n, y_n = select(gumbel:TAU): a one-hot forward pass
//                                whose gradient is that of softmax((log p + g_n) / TAU)
// Used by the REINFORCE check (attention/reinforce.h) and the estimator lab (analysis/).
// Engine header: includes LibTorch. Not thread-safe in the sense that an Rng is not.

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "attention/reinforce.h"
#include "common/result.h"
#include "common/rng.h"

namespace saccade {

/// Checks a categorical problem as every estimator tool states it: equal lengths, every
/// probability finite and > 0, summing to 1 within kCategoricalSumTolerance, every reward finite
/// in [-1e9, 1e9]. The error is one line naming the problem.
std::optional<Error> checkCategoricalProblem(const std::vector<double>& probs,
                                             const std::vector<double>& rewards);
constexpr double kCategoricalSumTolerance = 1e-6;
constexpr double kMaxRewardMagnitude = 1e9;

/// N draws from softmax(logits) with SelectionRule::Sample, kept differentiable so that several
/// baselines can be applied to the same draws (common random numbers).
class ScoreFunctionDraws {
public:
    /// logits, rewards: [L] float64 on the CPU. Draws N uniforms from `rng`.
    ScoreFunctionDraws(const torch::Tensor& logits, const torch::Tensor& rewards, std::int64_t n,
                       Rng& rng);

    /// [N] float64: the reward of each drawn category.
    const torch::Tensor& rewards() const { return m_reward; }
    /// [N] int64: the drawn categories.
    const torch::Tensor& choices() const { return m_choice; }
    /// [N, L] float64 estimates of +grad E[r] with baseline b ([N], or a scalar tensor), from
    /// reinforceLoss and autograd. May be called any number of times.
    torch::Tensor gradients(const torch::Tensor& baseline) const;

private:
    torch::Tensor m_scores;  // [N, L] leaf: one row of logits per draw
    torch::Tensor m_logProb, m_reward, m_choice;
};

/// [N, L] float64 straight-through Gumbel-softmax estimates of +grad E[r]: the gradient of
/// f(y) = r . y, y from select() with the gumbel rule at `temperature` (in
/// [kMinGumbelTemperature, kMaxGumbelTemperature]). Draws N x L uniforms from `rng`.
torch::Tensor straightThroughGumbelGradients(const torch::Tensor& logits,
                                             const torch::Tensor& rewards, std::int64_t n,
                                             double temperature, Rng& rng);

/// [N] float64 baselines for rewards seen in order: b_n is `baseline`'s value before reward n,
/// so it never depends on draw n (the estimate stays unbiased). Folds every reward into
/// `baseline`, which can carry on into the next batch.
torch::Tensor movingAverageBaselines(const torch::Tensor& rewards, MovingAverageBaseline& baseline);

/// Per-column moments of [N, L] per-sample estimates (N >= 2).
struct EstimateMoments {
    std::vector<double> mean;
    std::vector<double> standardError;  ///< sqrt(variance / N)
    std::vector<double> variance;       ///< unbiased sample variance
    double totalVariance = 0;           ///< summed over columns
};
EstimateMoments estimateMoments(const torch::Tensor& perSample);

}  // namespace saccade
