#pragma once
// Attention beside attribution on the same ground truth (issue 37): over a test split, every map
// named (analysis/image_maps.h: attention, rollout, each attribution method) of each image, for
// the class the model gives it, scored as attention is scored:
// - mass in the box and the pointing game on the cell grid (metrics/attention_regions.h);
// - deletion and insertion curves of the target's probability and their areas
//   (analysis/deletion_curves.h): deletion lower is better, insertion higher;
// - the model-randomisation sanity check on the first images (analysis/sanity_check.h).
// Attention is a record of where the model looked; these figures say how far each map predicts
// what the answer needs. Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/attribution/image_maps.h"
#include "analysis/attribution/sanity_check.h"
#include "common/progress.h"
#include "common/result.h"
#include "data/dataset.h"
#include "models/attention_model.h"

namespace saccade {

struct MapComparisonOptions {
    std::vector<std::string> methods;  ///< map names; each must pass checkMapMethod
    std::int64_t limit = 100;          ///< test images
    std::int64_t sanityImages = 10;    ///< the first images the sanity check runs on (0: not run)
    int curvePoints = 20;              ///< fractions 0, 1/points, ..., 1 of the cells
    std::string rule;                  ///< empty: the model's deterministic rule
    std::uint64_t seed = 1;            ///< traces, SmoothGrad's noise, the randomised weights
    double sanityThreshold = kSanityThreshold;
    int gridForGlimpses = 10;          ///< cells per side where the model has no grid (a RAM)
    AttributionOptions attribution;    ///< steps, baseline, samples, sigma of the attribution methods
};

struct MapFigures {
    std::string method;
    std::int64_t images = 0, boxed = 0;
    std::optional<double> massInBox, pointing;  ///< means over boxed images; unset without boxes
    std::vector<double> deletion, insertion;    ///< mean target probability per fraction
    double deletionAuc = 0, insertionAuc = 0;   ///< means of the per-image areas
    std::optional<SanityCurve> sanity;          ///< unset when the check did not run
};

struct MapComparisonReport {
    std::string dataset, rule;
    std::int64_t images = 0, boxed = 0, sanityImages = 0;
    int rows = 0, cols = 0;
    std::vector<double> fractions;
    std::optional<double> uniformMass;  ///< mean box share of the image: a uniform map's mass
    double sanityThreshold = kSanityThreshold;
    std::uint64_t seed = 1;
    std::vector<MapFigures> maps;       ///< in the order of options.methods, less the omitted ones
    /// The maps asked for that the model cannot give, each with the reason (checkMapMethod's line,
    /// or the map's error on the first image); their rows are left out of the table.
    std::vector<std::pair<std::string, std::string>> omitted;
    /// Why the sanity check did not run ("no parameter groups", "--sanity-images 0"); empty: it ran.
    std::string sanityNote;
    double seconds = 0;
};

/// The table. A map the model cannot give is left out (report.omitted) unless it is the only one
/// asked for. Errors: no map the model gives (checkMapMethod's line), a dataset that does not fit
/// the model, an empty split, a map's or the model's error, cancel.
Result<MapComparisonReport> compareMaps(AttentionModel& model, const Dataset& dataset, Split split,
                                        const MapComparisonOptions& options, const Progress& progress = {});

/// JSON (schema "saccade.map-faithfulness", version 1); unmeasured figures are null.
std::string mapComparisonToJson(const MapComparisonReport& report, int indent = 2);

}  // namespace saccade
