#pragma once
// Agreement under small seeded shifts: a signal that needs no sampling, so it works for any model
// (a transformer, an imported model without forward_sampled). The image is translated by a few
// pixels (the uncovered border filled with the background, 0), the model is run again under the
// same rule, and two figures say how stable its answer is:
//   answer  the fraction of shifted copies whose output equals the unshifted image's;
//   look    the fraction of (copy, step) pairs whose most attended cell, its centre shifted back
//           by the copy's offset, is the unshifted image's most attended cell at that step.
// The offsets of image i come from (seed, i) alone: the same seed gives the same figures.

#include <cstdint>
#include <utility>
#include <vector>

#include "common/result.h"
#include "data/image.h"
#include "models/attention_model.h"

namespace saccade {

/// A copy of `image` with its content moved right by dx and down by dy pixels (negative: left,
/// up); the pixels that nothing moves onto are 0.
Image shiftImage(const Image& image, int dx, int dy);

/// `count` offsets (dx, dy) in [-maxShift, maxShift]^2, never (0, 0), drawn from (seed, index).
std::vector<std::pair<int, int>> seededShifts(std::uint64_t seed, std::int64_t index, int count, int maxShift);

struct ShiftAgreement {
    double answer = 0;  ///< fraction of copies with the unshifted answer
    double look = 0;    ///< fraction of (copy, step) pairs that looked at the same cell (NaN: no map)
    int copies = 0;
};

/// Traces `image` and its `shifts` copies under `rule` (seed `seed` for every trace); the cells are
/// those of the trace's grid, or `fallbackGrid` per side for a map without one (a Gaussian).
/// `reference` is the unshifted trace when the caller has it.
Result<ShiftAgreement> measureShiftAgreement(AttentionModel& model, const Image& image, const Trace& reference,
                                             const std::string& rule, std::uint64_t seed,
                                             const std::vector<std::pair<int, int>>& shifts, int fallbackGrid = 10);

}  // namespace saccade
