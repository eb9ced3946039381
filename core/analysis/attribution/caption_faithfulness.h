#pragma once
// Faithfulness of a captioner's attention, word by word: for each word that names an object
// (size, colour, shape), the attention mass on that object's box at the word's step, and a
// deletion test: occlude the most attended cells of that step (against as many random cells)
// and decode again: is the word still in the caption? A word that survives losing the cells it
// looked at did not need them. Shared by `saccade-cli faithfulness` on a captioner (which shards
// it over scenes with --shard i/N) and the Probes & cost page (schema "saccade.caption-faithfulness").

#include <cstdint>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "common/shard.h"
#include "data/dataset.h"
#include "models/attention_model.h"

namespace saccade {

struct CaptionFaithfulnessOptions {
    std::int64_t limit = 50;  ///< test scenes
    std::vector<double> fractions{0.0, 0.05, 0.1, 0.2, 0.3};  ///< of the cells occluded
    std::uint64_t seed = 1;   ///< sampled rules, and the random cells
    std::string rule;         ///< empty: its greedy rule (soft for a soft captioner, else argmax)
    Shard shard;              ///< only this slice of the `limit` scenes (each is independent)
};

/// What the figures are made of, in sums that add up across shards exactly.
struct CaptionFaithfulnessSums {
    std::int64_t images = 0, words = 0;
    int rows = 0, cols = 0;
    ExactSum mass, area;                                   ///< over object words
    std::vector<std::int64_t> keptAttended, keptRandom;   ///< per fraction
    /// Adds another slice's sums (same fractions).
    void add(const CaptionFaithfulnessSums& other);
};

struct CaptionDeletionPoint {
    double fraction = 0;
    double keptAttended = 0;  ///< share of object words still in the caption, attended cells occluded
    double keptRandom = 0;    ///< the same with random cells
};

struct CaptionFaithfulness {
    std::string dataset, rule;
    std::int64_t images = 0, words = 0;  ///< scenes, and object words scored over them
    int rows = 0, cols = 0;              ///< the attention grid
    double massOnObject = 0;             ///< mean attention mass on the named object at its word
    double uniformMass = 0;              ///< what uniform attention would put there (mean box share)
    std::vector<CaptionDeletionPoint> deletion;
    double seconds = 0;
    CaptionFaithfulnessSums sums;  ///< what the figures above are made of
    /// A sharded measurement: its slice, the scenes [begin, begin + images) of `total`, and what
    /// every shard of the run must share (set by the caller); the JSON then carries the sums.
    Shard shard;
    std::int64_t begin = 0, total = 0;
    std::string fingerprint;
};

/// The figures from their sums (zeros where no word was scored).
CaptionFaithfulness captionFaithfulnessFromSums(const CaptionFaithfulnessSums& sums, const std::vector<double>& fractions,
                                                const std::string& dataset, const std::string& rule);

/// Errors: not a captioner, a dataset without captions or object boxes, a bad fraction, or what
/// the model reports. Progress after each scene; false cancels.
Result<CaptionFaithfulness> measureCaptionFaithfulness(AttentionModel& model, const Dataset& dataset, Split split,
                                                       const CaptionFaithfulnessOptions& options,
                                                       const Progress& progress = {});

std::string captionFaithfulnessToJson(const CaptionFaithfulness& report, int indent = 2);

/// A sharded measurement's sums back from its JSON; for merging shards.
Result<CaptionFaithfulnessSums> captionFaithfulnessSumsFromJson(const std::string& text);

}  // namespace saccade
