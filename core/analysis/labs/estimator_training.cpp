#include "analysis/labs/estimator_training.h"

#include <torch/torch.h>

#include "attention/gradient_estimates.h"

namespace saccade {

namespace {

std::vector<double> toVector(const torch::Tensor& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace

Result<EstimatorTrajectory> trainWithEstimator(const EstimatorProblem& problem,
                                               const EstimatorSpec& spec,
                                               const EstimatorTrainingSettings& s,
                                               const Progress& progress) {
    torch::NoGradGuard noGrad;
    const auto& rewards = problem.rewards();
    auto logits = problem.logits().clone();
    Rng rng(spec.kind == EstimatorKind::GumbelST ? gumbelSeed(s.seed) : s.seed);
    MovingAverageBaseline average(s.baselineDecay);

    EstimatorTrajectory run;
    run.name = spec.name();
    auto record = [&] {
        const auto p = torch::softmax(logits, /*dim=*/0);
        run.probs.push_back(toVector(p));
        run.expectedReward.push_back((p * rewards).sum().item<double>());
    };
    record();
    for (std::int64_t step = 1; step <= s.steps; ++step) {
        torch::Tensor gradient;
        if (spec.kind == EstimatorKind::Exact) {
            const auto p = torch::softmax(logits, /*dim=*/0);
            gradient = p * (rewards - (p * rewards).sum());
        } else if (spec.kind == EstimatorKind::GumbelST) {
            gradient = straightThroughGumbelGradients(logits, rewards, s.samplesPerStep,
                                                      spec.temperature, rng)
                           .mean(/*dim=*/0);
        } else {
            const ScoreFunctionDraws draws(logits, rewards, s.samplesPerStep, rng);
            torch::Tensor baseline = problem.scalar(0.0);
            if (spec.kind == EstimatorKind::MovingAverage)
                baseline = movingAverageBaselines(draws.rewards(), average);
            else if (spec.kind == EstimatorKind::OptimalBaseline)
                baseline =
                    problem.scalar(optimalBaselineFor(torch::softmax(logits, /*dim=*/0), rewards));
            gradient = draws.gradients(baseline).mean(/*dim=*/0);
        }
        logits = logits + s.learningRate * gradient;
        if (!torch::isfinite(logits).all().item<bool>()) {
            return Error{"training with " + run.name + " diverged at step " + std::to_string(step) +
                         " (the logits are no longer finite): lower the learning rate"};
        }
        record();
        if (progress && !progress(static_cast<double>(step) / static_cast<double>(s.steps)))
            return Error{"cancelled"};
    }
    return run;
}

}  // namespace saccade
