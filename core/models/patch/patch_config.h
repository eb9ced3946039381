#pragma once
// Configuration of the patch-attention classifier (plain types, stored in checkpoint sidecars).

#include <string>

#include "common/result.h"
#include "trace/output_kind.h"

namespace saccade {

struct PatchConfig {
    int inChannels = 1;
    int imageSize = 60;    ///< square inputs; a multiple of 2 x grid
    int grid = 10;         ///< g: the encoder yields a g x g grid of cells
    int featureDim = 64;   ///< D: features per cell
    int hidden = 128;      ///< LSTM state
    int attnHidden = 64;   ///< additive scorer width
    int steps = 4;         ///< T: attention steps
    int classes = 10;
    std::string scorer = "additive";  ///< additive, dot, general, scaled-dot
    TrainingMode mode = TrainingMode::Soft;  ///< how it was trained: soft, hard or gumbel
    /// "dense": one CNN computes every cell's features before selection (selection saves
    /// nothing). "select": a cheap low-resolution pass scores the cells and the patch network
    /// runs only on each step's selected cell (a window of 3 x 3 cells around it); rules that
    /// weight every cell (soft, gumbel, the 0.5 expectation mix) still process all cells.
    std::string variant = "dense";
};

/// Side in pixels of the window the select variant's patch network reads around a cell.
inline int patchWindow(const PatchConfig& c) { return 3 * c.imageSize / c.grid; }

/// Checks sizes and names; the error says which field is wrong.
Result<PatchConfig> validatePatchConfig(const PatchConfig& config);

std::string patchConfigToJson(const PatchConfig& config);
Result<PatchConfig> patchConfigFromJson(const std::string& json);

}  // namespace saccade
