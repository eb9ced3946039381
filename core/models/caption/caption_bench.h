#pragma once
// Benchmark of the captioner's decoder at the sizes of ../shared/bench/sat_reference.py (grid 8,
// D 128, embed 64, hidden 256, attention 128, vocabulary 32, captions up to 16 tokens, batch 64)
// on random annotations (the encoder is outside the timed region, as in the reference): training
// images/s (soft attention, teacher forcing, the doubly stochastic regulariser, one Adam step) and
// the time of N stochastic captions of one image (a location sampled per word, greedy words).

#include <string>

#include "common/result.h"

namespace saccade {

struct CaptionBenchOptions {
    int grid = 8, featureDim = 128, embed = 64, hidden = 256, attnHidden = 128, vocabulary = 32, length = 16;
    int batch = 64;
    int captions = 1000;
    int steps = 10;    ///< timed training steps per repeat
    int repeats = 5;
    int warmups = 2;   ///< untimed runs before the repeats (0: none, for counting instructions)
    std::string device = "auto";
};

struct CaptionBenchResult {
    int threads = 0;
    std::string device;
    double trainStepMs = 0, trainImagesPerSecond = 0;
    double captionsMs = 0;  ///< median ms for `captions` stochastic captions of one image
    int captionSteps = 0;   ///< word steps the captions took (all stop at <end> or the length)
};

Result<CaptionBenchResult> benchCaption(const CaptionBenchOptions& options);
/// {"train": {"images_per_s", "ms_per_step", "batch"}, "captions": {"ms", "n", "steps"}, ...}
std::string captionBenchToJson(const CaptionBenchOptions& options, const CaptionBenchResult& result, int indent = 2);

}  // namespace saccade
