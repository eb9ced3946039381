#pragma once
// Training a sequence model on the shared loop: teacher forcing, token cross-entropy, Adam on the
// cosine schedule, gradient clipping. Hard alignment samples one source token per step and adds
// REINFORCE on the sentence's log-likelihood with the moving-average baseline and an entropy
// bonus. Every iteration draws new sentences (sample i of the training split is fixed by the
// seed), so a run is reproducible for a given iteration count.

#include <functional>
#include <string>

#include "common/result.h"
#include "models/seq/seq_config.h"
#include "train/train_options.h"
#include "train/train_progress.h"

namespace saccade {

struct SeqTrainOptions : TrainCommonOptions {
    SeqTrainOptions() {
        lr = 2e-3;
        batch = 64;
        evalImages = 500;
    }
    SeqConfig model;  ///< task, cell, scorer, alignment and sizes (vocabularies come from the task)
    double entropyBonus = 0.01;  ///< hard alignment only
};

/// Runs training; `onProgress` after every iteration (false stops it; the model is saved).
/// Held-out figures: exact match on the first `evalImages` test sentences (evalSoft = the model's
/// deterministic rule, evalSample = sampled alignment for hard models).
Result<TrainSummary> trainSeqModel(const SeqTrainOptions& options,
                                   const std::function<bool(const TrainProgress&)>& onProgress = {});

}  // namespace saccade
