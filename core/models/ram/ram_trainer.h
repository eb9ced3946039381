#pragma once
// Training the Recurrent Attention Model (Mnih et al. 2014) with the hybrid loss: cross-entropy
// for the classifier and core, REINFORCE for the location policy (reward: 1 when the final class
// is right) with the learned baseline as control variate, and the baseline's own squared error.
// M Monte-Carlo replicas of each image per batch. Adam with a cosine schedule; seeded; the same
// checkpoints, metrics and progress as every trainer (train/train_loop.h).

#include <functional>
#include <string>

#include "common/result.h"
#include "models/ram/ram_config.h"
#include "train/train_options.h"
#include "train/train_progress.h"

namespace saccade {

/// A RamConfig whose glimpse size and scale count are 0 ("the dataset's default").
RamConfig zeroGlimpseDefaults();

struct RamTrainOptions : TrainCommonOptions {
    RamTrainOptions() { lr = 1e-3; }
    std::string dataset = "translated-fashion60";
    /// Image size, channels and classes come from the dataset; a glimpse size or scale count of
    /// 0 takes defaultRamConfig's value for the dataset's image size.
    RamConfig model = zeroGlimpseDefaults();
    int replicas = 1;        ///< M
    /// Every pass over the training split uses new canvases: sample i + pass * n, the same item
    /// at another place with other distractors (canvas datasets generate any index). Off: every
    /// pass sees the same n images.
    bool freshCanvases = true;
};

/// Progress and summary as for the patch trainer; in TrainProgress, evalArgmax is the mean rule,
/// evalSample the sample rule, evalSoft the random-glimpse control; entropy is unused (the
/// policy's standard deviation is fixed).
Result<TrainSummary> trainRamModel(const RamTrainOptions& options,
                                   const std::function<bool(const TrainProgress&)>& onProgress = {});

}  // namespace saccade
