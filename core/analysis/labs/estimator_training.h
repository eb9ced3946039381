#pragma once
// Inside the estimator lab: gradient ascent on E[r] under one estimator. Includes LibTorch
// through estimator_problem.h; not a public header.

#include <cstdint>

#include "analysis/labs/estimator_lab.h"
#include "analysis/labs/estimator_problem.h"
#include "common/progress.h"
#include "common/result.h"

namespace saccade {

struct EstimatorTrainingSettings {
    std::int64_t steps = 0;
    double learningRate = 0;
    std::int64_t samplesPerStep = 1;
    std::uint64_t seed = 1;
    double baselineDecay = 0.9;
};

/// Plain gradient ascent on the logits, logits += learningRate * (mean of samplesPerStep one-draw
/// estimates), from the problem's logits and a fresh Rng(settings.seed) (Gumbel: its own stream),
/// so every estimator starts from the same point and seed. The moving-average baseline carries
/// over from step to step; the optimal baseline is recomputed from each step's probabilities.
/// Errors when the logits stop being finite (the message names the estimator and the step), and
/// "cancelled" when `progress` (called after every step with the fraction done) returns false.
Result<EstimatorTrajectory> trainWithEstimator(const EstimatorProblem& problem,
                                               const EstimatorSpec& spec,
                                               const EstimatorTrainingSettings& settings,
                                               const Progress& progress = {});

}  // namespace saccade
