#pragma once
// Training the Show-Attend-Tell captioner (Xu et al. 2015 section 4) on captioned scenes, by
// teacher forcing: soft (backprop through the expected context, with the doubly stochastic
// regulariser lambda sum_i (1 - sum_t alpha_ti)^2), hard (a location sampled per word; REINFORCE
// with the caption's log-likelihood as reward, the moving-average baseline, an entropy bonus and,
// with probability `expectationMix`, the expected context instead of the sample), or gumbel
// (straight-through, tau = max(0.5, exp(-r t))). The loop, checkpoints and progress are the
// shared ones (train/train_loop.h).

#include <cstdint>
#include <functional>
#include <string>

#include "common/result.h"
#include "train/train_options.h"
#include "models/caption/caption_config.h"
#include "train/train_progress.h"

namespace saccade {

struct CaptionTrainOptions : TrainCommonOptions {
    CaptionTrainOptions() {
        batch = 64;
        evalEvery = 250;
        evalImages = 256;
    }
    std::string dataset = "scenes64";
    /// Image size, channels and vocabulary come from the dataset; a maxLength of 0 fits its longest caption.
    CaptionConfig model = []{ CaptionConfig c; c.maxLength = 0; return c; }();
    /// Start from this captioner's weights (same architecture; e.g. hard fine-tuned from soft).
    std::string initFrom;
    double dsrLambda = 1.0;       ///< soft
    /// soft: weight of the attention's mean entropy per word, added to the loss. 0 is the paper's
    /// soft attention; a positive weight sharpens each word's distribution, so that it must pick
    /// the cells it reads (and, with a wide encoder, the words' cells move onto their objects).
    double attentionEntropy = 0;
    /// Iterations over which that weight ramps linearly from 0 (0: full weight from the first
    /// step), so that the scorer can find the objects before the attention must choose.
    std::int64_t attentionEntropyWarmup = 0;
    double entropyBonus = 0.01;   ///< hard: lambda_e
    double expectationMix = 0.5;  ///< hard: probability of the expected context per caption
    double gumbelRate = 2e-4;     ///< gumbel
};

/// Progress: evalSoft, evalArgmax, evalSample are held-out exact-match rates under soft, argmax
/// and sample; evalBleu4 and evalAttention (mass on the named object) under the model's
/// deterministic rule (soft for soft training, argmax otherwise).
Result<TrainSummary> trainCaptionModel(const CaptionTrainOptions& options,
                                       const std::function<bool(const TrainProgress&)>& onProgress = {});

}  // namespace saccade
