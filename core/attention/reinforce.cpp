#include "attention/reinforce.h"

#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "attention/selection.h"

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

namespace {

struct Moments {
    std::vector<double> mean, stderr_;
    double variance = 0;  // summed over components
};

Moments moments(const torch::Tensor& perSample) {  // [N, L] double
    Moments m;
    const auto n = perSample.size(0);
    const auto mean = perSample.mean(/*dim=*/0);
    const auto var = perSample.var(/*dim=*/0, /*unbiased=*/true);
    const auto se = (var / static_cast<double>(n)).sqrt();
    for (int64_t j = 0; j < perSample.size(1); ++j) {
        m.mean.push_back(mean[j].item<double>());
        m.stderr_.push_back(se[j].item<double>());
    }
    m.variance = var.sum().item<double>();
    return m;
}

}  // namespace

Result<ScoreFunctionCheck> checkScoreFunctionGradient(const ScoreFunctionCheckInput& in) {
    const auto L = static_cast<int64_t>(in.probs.size());
    if (L == 0) return Error{"no probabilities given"};
    if (in.rewards.size() != in.probs.size()) {
        return Error{"length mismatch: " + std::to_string(L) + " probabilities but " +
                     std::to_string(in.rewards.size()) + " rewards"};
    }
    double total = 0;
    for (double p : in.probs) {
        if (!(p > 0) || !std::isfinite(p))
            return Error{"every probability must be > 0 (logits must be finite)"};
        total += p;
    }
    if (std::abs(total - 1.0) > 1e-6) return Error{"probabilities must sum to 1"};
    if (in.samples < 2) return Error{"need at least 2 samples"};
    for (double r : in.rewards)
        if (!std::isfinite(r) || std::abs(r) > 1e9)
            return Error{"every reward must be a number from -1e9 to 1e9 (larger ones overflow the variance)"};
    if (!(in.baselineDecay >= 0 && in.baselineDecay <= 1)) return Error{"the baseline decay must be in [0, 1]"};

    torch::NoGradGuard outer;  // re-enabled below only where the gradient is taken
    const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    const auto logits = torch::tensor(in.probs, opts).log();
    const auto rewardTable = torch::tensor(in.rewards, opts);
    const int64_t N = in.samples;

    // One row of logits per sample: the gradient w.r.t. row n is sample n's estimate.
    auto scores = logits.unsqueeze(0).expand({N, L}).clone();
    const auto values = torch::zeros({N, L, 1}, opts);
    Rng rng(in.seed);
    SelectionOptions rule;
    rule.rule = SelectionRule::Sample;

    torch::Tensor logProb, chosen;
    {
        torch::AutoGradMode enable(true);
        scores.requires_grad_(true);
        const auto s = select(scores, values, rule, rng);
        logProb = s.logProb;
        chosen = s.indices.squeeze(-1);
    }
    const auto reward = rewardTable.index_select(0, chosen);

    // Moving-average baseline: b_n uses rewards 1..n-1 only, so the estimate stays unbiased.
    std::vector<double> baseline(static_cast<size_t>(N));
    MovingAverageBaseline b(in.baselineDecay);
    const auto rewardAcc = reward.accessor<double, 1>();
    for (int64_t n = 0; n < N; ++n) {
        baseline[static_cast<size_t>(n)] = b.value();
        b.update(rewardAcc[n]);
    }
    const auto baselineT = torch::tensor(baseline, opts);

    auto perSampleGradient = [&](const torch::Tensor& base) {
        torch::AutoGradMode enable(true);
        // reinforceLoss averages over N; scale back so each row holds one sample's estimate of
        // +grad E[r].
        const auto loss = reinforceLoss(logProb, reward, base) * static_cast<double>(-N);
        return torch::autograd::grad({loss}, {scores}, {}, /*retain_graph=*/true)[0];
    };
    const auto plain = moments(perSampleGradient(torch::zeros({}, opts)));
    const auto based = moments(perSampleGradient(baselineT));

    ScoreFunctionCheck c;
    c.samples = N;
    const auto expected = (torch::tensor(in.probs, opts) * rewardTable).sum().item<double>();
    for (int64_t j = 0; j < L; ++j) c.exact.push_back(in.probs[j] * (in.rewards[j] - expected));
    c.meanNoBaseline = plain.mean;
    c.stderrNoBaseline = plain.stderr_;
    c.meanBaseline = based.mean;
    c.stderrBaseline = based.stderr_;
    c.varianceNoBaseline = plain.variance;
    c.varianceBaseline = based.variance;
    c.varianceRatio = based.variance > 0 ? plain.variance / based.variance : INFINITY;
    for (int64_t j = 0; j < L; ++j) {
        for (const auto* m : {&plain, &based}) {
            const double se = m->stderr_[j];
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
