#pragma once
// Training the patch-attention classifier (Xu et al. 2015 sections 4.1-4.2 applied to
// classification): soft (backprop through the expected context, doubly stochastic regulariser),
// hard (multinoulli sampling, REINFORCE with a moving-average baseline, entropy bonus, and the
// sampled location replaced by its expectation with probability 0.5), or gumbel (straight-through
// Gumbel-softmax, temperature max(0.5, exp(-r t))). Adam with a cosine schedule; seeded and
// reproducible for a given iteration count; checkpoints and metrics written atomically.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/result.h"
#include "train/train_options.h"
#include "models/patch/patch_config.h"
#include "train/train_progress.h"

namespace saccade {

struct PatchTrainOptions : TrainCommonOptions {
    std::string dataset = "translated-fashion60";
    PatchConfig model;            ///< model.mode selects soft, hard or gumbel
    /// Start from this checkpoint's weights (same architecture; its mode may differ, e.g. a soft
    /// model fine-tuned with REINFORCE). Fresh optimizer, schedule and baseline.
    std::string initFrom;
    double entropyBonus = 0.01;     ///< hard: lambda_e
    double dsrLambda = 0.0;         ///< soft: lambda of sum_i (1 - sum_t alpha_ti)^2
    double gumbelRate = 2e-4;       ///< gumbel: r in tau = max(0.5, exp(-r t))
};

/// Runs training; `onProgress` is called after every iteration (return false to stop: the model
/// is saved and the summary says cancelled). Errors: bad options, dataset or checkpoint problems.
Result<TrainSummary> trainPatchModel(const PatchTrainOptions& options,
                                     const std::function<bool(const TrainProgress&)>& onProgress = {});

}  // namespace saccade
