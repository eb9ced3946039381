#include "attention/reinforce.h"

#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "attention/gradient_estimates.h"

namespace saccade {

torch::Tensor reinforceLoss(const torch::Tensor& logProb, const torch::Tensor& reward,
                            const torch::Tensor& baseline) {
    TORCH_CHECK(logProb.dim() == 1 && reward.sizes() == logProb.sizes(),
                "logProb and reward must both be [B], got ", logProb.sizes(), " and ",
                reward.sizes());
    const auto advantage = (reward - baseline).detach();
    return -(advantage * logProb).mean();
}

double MovingAverageBaseline::update(double reward) {
    m_value = m_started ? m_decay * m_value + (1.0 - m_decay) * reward : reward;
    m_started = true;
    return m_value;
}

Result<ScoreFunctionCheck> checkScoreFunctionGradient(const ScoreFunctionCheckInput& in) {
    if (auto error = checkCategoricalProblem(in.probs, in.rewards)) return *error;
    if (in.samples < 2) return Error{"need at least 2 samples"};
    if (!(in.baselineDecay >= 0 && in.baselineDecay <= 1)) return Error{"the baseline decay must be in [0, 1]"};

    torch::NoGradGuard outer;  // the draws re-enable it only where the gradient is taken
    const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    const auto probs = torch::tensor(in.probs, opts);
    const auto rewardTable = torch::tensor(in.rewards, opts);
    Rng rng(in.seed);
    const ScoreFunctionDraws draws(probs.log(), rewardTable, in.samples, rng);
    MovingAverageBaseline movingAverage(in.baselineDecay);
    const auto plain = estimateMoments(draws.gradients(torch::zeros({}, opts)));
    const auto based = estimateMoments(draws.gradients(movingAverageBaselines(draws.rewards(), movingAverage)));

    ScoreFunctionCheck c;
    c.samples = in.samples;
    const auto expected = (probs * rewardTable).sum().item<double>();
    for (size_t j = 0; j < in.probs.size(); ++j) c.exact.push_back(in.probs[j] * (in.rewards[j] - expected));
    c.meanNoBaseline = plain.mean;
    c.stderrNoBaseline = plain.standardError;
    c.meanBaseline = based.mean;
    c.stderrBaseline = based.standardError;
    c.varianceNoBaseline = plain.totalVariance;
    c.varianceBaseline = based.totalVariance;
    c.varianceRatio = based.totalVariance > 0 ? plain.totalVariance / based.totalVariance : INFINITY;
    for (size_t j = 0; j < c.exact.size(); ++j) {
        for (const auto* m : {&plain, &based}) {
            const double se = m->standardError[j];
            const double diff = std::abs(m->mean[j] - c.exact[j]);
            c.maxAbsZ = std::max(c.maxAbsZ, se > 0 ? diff / se : (diff > 1e-12 ? INFINITY : 0.0));
        }
    }
    return c;
}

std::string scoreFunctionCheckToJson(const ScoreFunctionCheck& c, int indent) {
    nlohmann::json j;
    j["samples"] = c.samples;
    j["exact_gradient"] = c.exact;
    j["no_baseline"] = {{"mean", c.meanNoBaseline},
                        {"stderr", c.stderrNoBaseline},
                        {"variance", c.varianceNoBaseline}};
    j["moving_average_baseline"] = {
        {"mean", c.meanBaseline}, {"stderr", c.stderrBaseline}, {"variance", c.varianceBaseline}};
    j["variance_ratio"] = c.varianceRatio;
    j["max_abs_z"] = c.maxAbsZ;
    return j.dump(indent);
}

}  // namespace saccade
