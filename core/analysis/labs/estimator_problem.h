#pragma once
// Inside the estimator lab: the categorical problem with its exact gradient and closed-form
// variances, and the list of estimators the lab runs. Includes LibTorch; not a public header.

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace saccade {

enum class EstimatorKind { Exact, Reinforce, MovingAverage, OptimalBaseline, GumbelST };

struct EstimatorSpec {
    EstimatorKind kind = EstimatorKind::Exact;
    double temperature = 0;  ///< GumbelST only
    /// "exact", "reinforce", "reinforce-moving-average", "reinforce-optimal-baseline",
    /// "gumbel-st:TAU".
    std::string name() const;
};

/// The estimators of the lab in result order (no Exact).
std::vector<EstimatorSpec> estimatorSpecs(const std::vector<double>& temperatures);

/// The seed of the Gumbel noise, a stream apart from the REINFORCE draws of the same seed.
std::uint64_t gumbelSeed(std::uint64_t seed);

/// softmax(logits) with a reward per category, everything in float64 on the CPU. Immutable.
class EstimatorProblem {
public:
    /// logits and rewards already checked: same length, finite.
    EstimatorProblem(const std::vector<double>& logits, const std::vector<double>& rewards);

    const std::vector<double>& probs() const { return m_probs; }
    const std::vector<double>& logitValues() const { return m_logitValues; }
    const torch::Tensor& logits() const { return m_logits; }    ///< [L]
    const torch::Tensor& rewards() const { return m_rewards; }  ///< [L]
    /// d E[r] / d logit_j = p_j (r_j - E[r]).
    const std::vector<double>& exact() const { return m_exact; }
    double expectedReward() const { return m_expected; }
    /// b* = sum_i p_i r_i g_i / sum_i p_i g_i with g_i = ||e_i - p||^2: the constant baseline
    /// with the least summed variance.
    double optimalBaseline() const { return m_optimal; }

    /// Per logit, the variance of one draw's estimate with a constant baseline b:
    /// sum_i p_i (r_i - b)^2 (delta_ij - p_j)^2 - exact_j^2.
    std::vector<double> constantBaselineVariance(double b) const;
    /// Per logit, the variance of one draw's estimate averaged over N draws whose baseline is
    /// MovingAverageBaseline(decay): draw 0 sees b = 0, draw n >= 1 a baseline with mean E[r] and
    /// variance Var(r) s_n (s_1 = 1, s_(n+1) = decay^2 s_n + (1 - decay)^2), independent of draw n.
    std::vector<double> movingAverageVariance(double decay, std::int64_t n) const;

    /// A float64 scalar tensor.
    torch::Tensor scalar(double v) const;

private:
    std::vector<double> m_probs, m_logitValues, m_rewardValues, m_exact;
    torch::Tensor m_logits, m_rewards;
    double m_expected = 0;
    double m_optimal = 0;
};

/// E[r] and b* for the probabilities in `probs` ([L] tensor) under `rewards`: the training loop
/// recomputes the optimal baseline at every step.
double optimalBaselineFor(const torch::Tensor& probs, const torch::Tensor& rewards);

}  // namespace saccade
