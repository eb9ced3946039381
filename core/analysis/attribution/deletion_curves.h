#pragma once
// Deletion and insertion curves of a map over an image's cells, shared by attention's
// faithfulness (analysis/faithfulness.h) and the comparison of maps (analysis/map_comparison.h).
// Deletion fills the cells with the background (0) in the map's order, most important first, and
// reads the target's probability after each fraction; insertion starts from the blank image and
// restores the cells in the same order (Petsiuk et al. 2018, RISE). The copies of one image go to
// AttentionModel::outputProbs in batches. Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/image.h"
#include "models/attention_model.h"

namespace saccade {

/// The cells of a map, most important (largest) first; ties in index order.
std::vector<int> cellsByImportance(const std::vector<double>& map);

/// The deletion tests' control: `cells` cells in a random order, shuffled by a generator seeded
/// with `seed` (the caller mixes in its stream and the image), so that it is reproducible.
std::vector<int> randomCellOrder(int cells, std::uint64_t seed);

/// Class probabilities of `images` under `rule` and `seed`, through outputProbs in chunks of 64;
/// `afterChunk(images)` after each chunk, returning false to cancel (then the error "cancelled").
Result<std::vector<std::vector<float>>> batchedOutputProbs(AttentionModel& model, const std::vector<Image>& images,
                                                           const std::string& rule, std::uint64_t seed,
                                                           const std::function<bool(std::int64_t)>& afterChunk = {});

/// The fractions 0, 1/points, 2/points, ..., 1 (points >= 1).
std::vector<double> curveFractions(int points);

/// The area under a curve over [fractions.front(), fractions.back()] by the trapezoid rule.
double curveArea(const std::vector<double>& fractions, const std::vector<double>& values);

struct DeletionInsertion {
    std::vector<double> fractions;            ///< of the cells deleted, or restored
    std::vector<double> deletion, insertion;  ///< the target's probability at each fraction
    double deletionAuc = 0;                   ///< lower: the map found what the answer needs
    double insertionAuc = 0;                  ///< higher: the map found what the answer needs
    std::int64_t forwards = 0;                ///< images through the model
};

/// Both curves of `map` (rows x cols cells, row-major) on `image` for class `target`; the cell
/// count at fraction f is round(f * cells). Errors: the model's, or a map of the wrong size.
Result<DeletionInsertion> deletionInsertionCurves(AttentionModel& model, const Image& image, int rows, int cols,
                                                  const std::vector<double>& map, int target, const std::string& rule,
                                                  std::uint64_t seed, const std::vector<double>& fractions);

}  // namespace saccade
