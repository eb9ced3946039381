#pragma once
// The score-function (REINFORCE) estimator with a baseline, and a check of it on a categorical
// with known probabilities and rewards.
// grad E[r] = E[(r - b) grad log p(choice)] for any b that does not depend on the choice.

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "common/result.h"

namespace saccade {

/// A surrogate whose gradient is the REINFORCE estimate of -grad E[r]:
/// -mean((reward - baseline) * logProb), with reward and baseline detached.
/// logProb, reward [B]; baseline [B] or a scalar tensor.
torch::Tensor reinforceLoss(const torch::Tensor& logProb, const torch::Tensor& reward,
                            const torch::Tensor& baseline);

/// b_k = decay * b_(k-1) + (1 - decay) * r_k, starting from the first reward seen
/// (Xu et al. 2015 section 4.1 uses decay 0.9).
class MovingAverageBaseline {
public:
    explicit MovingAverageBaseline(double decay = 0.9) : m_decay(decay) {}
    /// The baseline to use before seeing `reward` (0 before the first reward).
    double value() const { return m_value; }
    /// Folds in a new reward; returns the updated baseline.
    double update(double reward);

private:
    double m_decay;
    double m_value = 0;
    bool m_started = false;
};

struct ScoreFunctionCheckInput {
    std::vector<double> probs;    ///< the categorical, parameterised as softmax(logits)
    std::vector<double> rewards;  ///< reward of each category
    std::int64_t samples = 10000;
    std::uint64_t seed = 1;
    double baselineDecay = 0.9;  ///< moving-average baseline, updated after each sample
};

/// Per logit j: the exact gradient p_j (r_j - E[r]) and two Monte-Carlo estimates from the same
/// draws, one without and one with the moving-average baseline, each with its standard error.
struct ScoreFunctionCheck {
    std::vector<double> exact;
    std::vector<double> meanNoBaseline, stderrNoBaseline;
    std::vector<double> meanBaseline, stderrBaseline;
    double varianceNoBaseline = 0;  ///< summed over logits, per sample
    double varianceBaseline = 0;
    double varianceRatio = 0;  ///< varianceNoBaseline / varianceBaseline
    double maxAbsZ = 0;        ///< largest |mean - exact| / stderr over both estimators
    std::int64_t samples = 0;
};

/// Draws `samples` categories with the engine's sample rule and differentiates
/// reinforceLoss through autograd (ScoreFunctionDraws in attention/gradient_estimates.h, which the
/// estimator lab in analysis/ uses too: the same seed gives the lab's reinforce and
/// reinforce-moving-average figures exactly). Errors on invalid probabilities or mismatched lengths.
Result<ScoreFunctionCheck> checkScoreFunctionGradient(const ScoreFunctionCheckInput& input);

std::string scoreFunctionCheckToJson(const ScoreFunctionCheck& check, int indent = 2);

}  // namespace saccade
