#pragma once
// Every map of an image classifier by one name, on one grid of cells: the model's attention (its
// trace under the measured rule), attention rollout (a transformer's "rollout" rule) and each
// attribution method (analysis/attribution.h). What the comparison of maps
// (analysis/map_comparison.h) and the sanity check (analysis/sanity_check.h) ask for, so that
// neither knows how a map is made. A trace's map is the mean of its steps' maps on the grid, as
// attention's faithfulness measures it. Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attribution/attribution.h"
#include "common/result.h"
#include "data/image.h"
#include "models/attention_model.h"

namespace saccade {

/// The map names, in the order a table lists them: attention, rollout, then attributionMethods().
const std::vector<std::string>& mapMethods();

/// Parses a comma-separated list of map names (each once) out of `allowed`, for images here and
/// for sentences (analysis/seq_attribution.h). Errors: an empty list, an unknown or repeated name.
Result<std::vector<std::string>> parseMethodList(const std::string& commaList, const std::vector<std::string>& allowed);
/// parseMethodList over mapMethods().
Result<std::vector<std::string>> parseMapMethods(const std::string& commaList);

/// The maps of a table: those asked for that the model gives, in order, and the others with the
/// reason (`check`'s line); images, captions and sentences share it.
struct MethodSelection {
    std::vector<std::string> kept;
    std::vector<std::pair<std::string, std::string>> omitted;
};
MethodSelection selectMethods(const std::vector<std::string>& asked,
                              const std::function<Result<Unit>(const std::string&)>& check);

/// Whether `model` gives `method`'s map: one line naming it when it does not (no rollout on a
/// model that is not a transformer, no gradients, no convolutional grid for Grad-CAM).
Result<Unit> checkMapMethod(AttentionModel& model, const std::string& method);

/// How maps are made: the rule (attention's, and the one attribution differentiates; rollout uses
/// "rollout"), the seed of traces and SmoothGrad, the grid, and the attribution methods' options.
struct MapSettings {
    std::string rule;
    std::uint64_t seed = 1;
    int rows = 0, cols = 0;
    AttributionOptions attribution;  ///< steps, baseline, samples, sigma; method and target are set per map
};

/// `method`'s map of `image` for class `target` on settings' rows x cols cells: each cell >= 0,
/// summing to 1 (all zeros where the map has no signal).
Result<std::vector<double>> imageMap(AttentionModel& model, const std::string& method, const Image& image, int target,
                                     const MapSettings& settings);

/// Pearson's correlation of two maps of the same size; 0 when either side is constant.
double pearson(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace saccade
