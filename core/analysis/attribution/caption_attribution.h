#pragma once
// Attention beside attribution for a captioner (issue 37), word by word: over a test split, for
// each word of the model's caption that names an object (size, colour, shape; the trace's
// wordObject), the attention at that word's step and each attribution map of that word
// (analysis/attribution.h: its logit, the decoder teacher-forced on the caption's earlier
// words), scored on the named object's box as attention is (metrics/attention_regions.h): the
// mass on the box over the model's cells and the pointing game. A uniform map's mass is the box's
// share of the image. Integrated gradients also give their mean completeness error.
// Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/attribution/attribution.h"
#include "common/progress.h"
#include "common/result.h"
#include "data/dataset.h"
#include "models/attention_model.h"

namespace saccade {

struct CaptionAttributionOptions {
    std::vector<std::string> methods;  ///< "attention" and attribution methods (parseMapMethods' names)
    std::int64_t limit = 40;           ///< test scenes
    std::string rule;                  ///< empty: the rule the model decodes with (evaluationRules().front())
    std::uint64_t seed = 1;            ///< SmoothGrad's noise
    AttributionOptions attribution;    ///< steps, baseline, samples, sigma; method and step are set per map
};

struct CaptionMapFigures {
    std::string method;
    std::int64_t words = 0;                      ///< object words scored
    double massOnObject = 0;                     ///< mean mass on the named object's box
    double pointing = 0;                         ///< share of words whose largest cell falls on the box
    std::optional<double> completenessError;     ///< integrated gradients: mean |sum - (f(x) - f(b))| / |f(x) - f(b)|
    std::optional<double> maxCompletenessError;  ///< and the largest
    double seconds = 0;
};

struct CaptionAttributionReport {
    std::string dataset, rule;
    std::int64_t images = 0, words = 0;  ///< scenes, and object words over them
    int rows = 0, cols = 0;              ///< the cell grid the maps are scored on
    double uniformMass = 0;              ///< a uniform map's mean mass (the boxes' mean share)
    std::vector<CaptionMapFigures> maps;  ///< in the order of options.methods, less the omitted ones
    /// The maps asked for that the model cannot give, with the reason; left out of the table.
    std::vector<std::pair<std::string, std::string>> omitted;
    double seconds = 0;
};

/// The table. A map the model cannot give (rollout; what attribute() refuses on the first object
/// word) is left out with the reason, unless it is the only one. Errors, one line: a model that
/// outputs no words, a dataset without captions or boxes, no map the model gives,
/// no object word in any caption, cancel. Progress after each scene; false cancels.
Result<CaptionAttributionReport> compareCaptionMaps(AttentionModel& model, const Dataset& dataset, Split split,
                                                    const CaptionAttributionOptions& options,
                                                    const Progress& progress = {});

/// JSON (schema "saccade.caption-attribution", version 1).
std::string captionAttributionToJson(const CaptionAttributionReport& report, int indent = 2);

}  // namespace saccade
