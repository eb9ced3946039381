#pragma once
// A captioner's boundary sweep: one object of a scene's vocabulary ("small red circle") moved
// pixel by pixel across a line of the attention grid, and at every position the caption under
// the model's deterministic rule and N sampled captions. It answers "when does the colour word
// fail?": whether each caption names the object's colour (and the whole object), the attention
// mass on the object at the colour word, and whether the chosen (or most attended) cell hits it.
// Shared by `saccade-cli sweep` on a captioner and its JSON (schema "saccade.caption-sweep").

#include <cstdint>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "common/shard.h"
#include "models/attention_model.h"

namespace saccade {

struct CaptionSweepOptions {
    std::string object = "small red circle";
    int side = 0;                ///< object side in pixels; 0: an eighth of the image (small) or a third (large)
    int dxMin = 0, dxMax = 0;    ///< offsets of the box's left edge from the grid line; both 0: from fully left to fully right
    int runs = 20;               ///< sampled captions per position (0: the deterministic rule only)
    std::uint64_t seed = 1;
    bool textured = false;       ///< the textured background of scenes96
    Shard shard;                 ///< only this slice of the positions (each is independent)
};

struct CaptionSweepPoint {
    int dx = 0, x = 0, y = 0;     ///< offset from the line, and the box's top-left corner
    std::string caption;          ///< under the deterministic rule
    bool exact = false;           ///< the caption is "a " + object
    bool colourRight = false;     ///< its colour word is the object's
    double mass = 0;              ///< attention on the object at the colour word's step
    bool hit = false;             ///< the chosen (soft: most attended) cell at that step hits the object
    double runsColourRight = -1;  ///< fraction of sampled captions naming the right colour (-1: no runs)
    double runsExact = -1;
};

struct CaptionSweep {
    std::string object, deterministicRule;
    int side = 0, cell = 0, line = 0;  ///< object side, cell size and the grid line's x, pixels
    int runs = 0;
    std::vector<CaptionSweepPoint> points;
    double seconds = 0;
    /// A sharded sweep: the positions [begin, begin + points) of `total`, and what every shard of
    /// the run must share (set by the caller); the JSON then carries a "shard" object.
    Shard shard;
    std::int64_t begin = 0, total = 0;
    std::string fingerprint;
};

/// Runs the sweep. Errors: the model is not a captioner, an unknown object, offsets that leave
/// the image, or what the model reports. Progress after each position; false cancels.
Result<CaptionSweep> sweepCaptionProbe(AttentionModel& model, const CaptionSweepOptions& options,
                                       const Progress& progress = {});

std::string captionSweepToJson(const CaptionSweep& sweep, int indent = 2);
/// The sweep back from its JSON; for merging shards.
Result<CaptionSweep> captionSweepFromJson(const std::string& json);

}  // namespace saccade
