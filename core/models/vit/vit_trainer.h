#pragma once
// Training the native Vision Transformer: cross-entropy with label smoothing, AdamW (decoupled
// weight decay) on the shared loop's cosine schedule, gradient clipping. Seeded and reproducible
// for a given iteration count; checkpoints and metrics written atomically.

#include <functional>
#include <string>

#include "common/result.h"
#include "models/vit/vit_config.h"
#include "train/train_options.h"
#include "train/train_progress.h"

namespace saccade {

struct VitTrainOptions : TrainCommonOptions {
    VitTrainOptions() {
        lr = 1e-3;
        batch = 64;
    }
    std::string dataset = "translated-fashion60";
    VitConfig model;
    double weightDecay = 0.05;
    double labelSmoothing = 0.1;
    /// Shift each training image by a random offset that keeps its object on the canvas
    /// (`shiftKeepingBoxes`): new positions every epoch, for a model with no built-in
    /// translation invariance.
    bool shift = false;
};

/// Runs training; `onProgress` after every iteration (false stops it; the model is saved).
Result<TrainSummary> trainVitModel(const VitTrainOptions& options,
                                   const std::function<bool(const TrainProgress&)>& onProgress = {});

}  // namespace saccade
