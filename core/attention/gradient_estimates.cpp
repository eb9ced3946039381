#include "attention/gradient_estimates.h"

#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "attention/selection.h"

namespace saccade {

std::optional<Error> checkCategoricalProblem(const std::vector<double>& probs,
                                             const std::vector<double>& rewards) {
    if (probs.empty()) return Error{"no probabilities given"};
    if (rewards.size() != probs.size()) {
        return Error{"length mismatch: " + std::to_string(probs.size()) + " probabilities but " +
                     std::to_string(rewards.size()) + " rewards"};
    }
    double total = 0;
    for (double p : probs) {
        if (!(p > 0) || !std::isfinite(p))
            return Error{"every probability must be > 0 (logits must be finite)"};
        total += p;
    }
    if (std::abs(total - 1.0) > kCategoricalSumTolerance) {
        std::ostringstream msg;
        msg.precision(10);
        msg << "probabilities must sum to 1 (within 1e-6), got " << total;
        return Error{msg.str()};
    }
    for (double r : rewards)
        if (!std::isfinite(r) || std::abs(r) > kMaxRewardMagnitude)
            return Error{
                "every reward must be a number from -1e9 to 1e9 (larger ones overflow the "
                "variance)"};
    return std::nullopt;
}

ScoreFunctionDraws::ScoreFunctionDraws(const torch::Tensor& logits, const torch::Tensor& rewards,
                                       std::int64_t n, Rng& rng) {
    const auto L = logits.size(0);
    const auto opts = logits.options();
    // One row of logits per draw: the gradient w.r.t. row n is draw n's estimate.
    m_scores = logits.detach().unsqueeze(0).expand({n, L}).clone();
    const auto values = torch::zeros({n, L, 1}, opts);
    SelectionOptions rule;
    rule.rule = SelectionRule::Sample;
    {
        torch::AutoGradMode enable(true);
        m_scores.requires_grad_(true);
        const auto s = select(m_scores, values, rule, rng);
        m_logProb = s.logProb;
        m_choice = s.indices.squeeze(-1);
    }
    m_reward = rewards.index_select(0, m_choice);
}

torch::Tensor ScoreFunctionDraws::gradients(const torch::Tensor& baseline) const {
    torch::AutoGradMode enable(true);
    // reinforceLoss averages over N and is a loss: scale by -N so each row holds one draw's
    // estimate of +grad E[r].
    const auto loss =
        reinforceLoss(m_logProb, m_reward, baseline) * static_cast<double>(-m_scores.size(0));
    return torch::autograd::grad({loss}, {m_scores}, {}, /*retain_graph=*/true)[0];
}

torch::Tensor straightThroughGumbelGradients(const torch::Tensor& logits,
                                             const torch::Tensor& rewards, std::int64_t n,
                                             double temperature, Rng& rng) {
    const auto L = logits.size(0);
    auto scores = logits.detach().unsqueeze(0).expand({n, L}).clone();
    // f(y) = r . y is the context of values r: the engine's own weights @ values.
    const auto values = rewards.detach().view({1, L, 1}).expand({n, L, 1}).contiguous();
    SelectionOptions rule;
    rule.rule = SelectionRule::Gumbel;
    rule.temperature = temperature;
    torch::AutoGradMode enable(true);
    scores.requires_grad_(true);
    const auto s = select(scores, values, rule, rng);
    return torch::autograd::grad({s.context.sum()}, {scores})[0];
}

torch::Tensor movingAverageBaselines(const torch::Tensor& rewards,
                                     MovingAverageBaseline& baseline) {
    const auto n = rewards.size(0);
    auto out = torch::empty({n}, rewards.options());
    const auto in = rewards.contiguous();
    const auto r = in.accessor<double, 1>();
    auto b = out.accessor<double, 1>();
    for (std::int64_t k = 0; k < n; ++k) {
        b[k] = baseline.value();
        baseline.update(r[k]);
    }
    return out;
}

EstimateMoments estimateMoments(const torch::Tensor& perSample) {
    EstimateMoments m;
    const auto n = perSample.size(0);
    const auto mean = perSample.mean(/*dim=*/0);
    const auto var = perSample.var(/*dim=*/0, /*unbiased=*/true);
    const auto se = (var / static_cast<double>(n)).sqrt();
    for (std::int64_t j = 0; j < perSample.size(1); ++j) {
        m.mean.push_back(mean[j].item<double>());
        m.standardError.push_back(se[j].item<double>());
        m.variance.push_back(var[j].item<double>());
    }
    m.totalVariance = var.sum().item<double>();
    return m;
}

}  // namespace saccade
