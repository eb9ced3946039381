#include "train/attention_step.h"

#include <algorithm>
#include <cmath>

#include "common/rng.h"
#include "train/training_group.h"

namespace saccade {

StepRule stepRule(TrainingMode mode, std::int64_t iteration, int rows, const torch::Device& device,
                  std::optional<double> mixShare, std::uint64_t mixSeed, double gumbelRate) {
    StepRule s;
    if (mode == TrainingMode::Hard) {
        s.rule.rule = SelectionRule::Sample;
        if (mixShare) s.mix = Rng(mixSeed).uniform({rows}, device) < *mixShare;
    } else if (mode == TrainingMode::Gumbel) {
        s.rule.rule = SelectionRule::Gumbel;
        s.tau = std::max(0.5, std::exp(-gumbelRate * double(iteration)));
        s.rule.temperature = s.tau;
    }
    return s;
}

torch::Tensor globalCount(const torch::Tensor& mask, int worldSize) {
    const double local = mask.sum().item<double>();
    const double scale = sumOverRanks(local) / (local * double(worldSize));
    return (mask.sum() * scale).detach();
}

torch::Tensor reinforceTerm(const torch::Tensor& reward, const torch::Tensor& logProb, const torch::Tensor& mix,
                            const ReinforceBaseline& baseline, TrainProgress& p) {
    p.reward = reward.mean().item<double>();
    auto advantage = reward - baseline.value();
    if (mix.defined()) advantage = advantage * mix.logical_not().to(reward.dtype());
    const auto reinforce = -(advantage * logProb).mean();
    p.reinforce = reinforce.item<double>();
    return reinforce;
}

bool backwardStep(const torch::Tensor& loss, torch::optim::Optimizer& optimizer, TrainProgress& p) {
    p.loss = loss.item<double>();
    if (!std::isfinite(p.loss)) return false;
    optimizer.zero_grad();
    loss.backward();
    return true;
}

}  // namespace saccade
