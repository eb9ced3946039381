#pragma once
// Configuration of the patch-attention classifier (plain types, stored in checkpoint sidecars).

#include <string>

#include "common/result.h"

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
    std::string mode = "soft";        ///< how it was trained: soft, hard or gumbel
};

/// Checks sizes and names; the error says which field is wrong.
Result<PatchConfig> validatePatchConfig(const PatchConfig& config);

std::string patchConfigToJson(const PatchConfig& config);
Result<PatchConfig> patchConfigFromJson(const std::string& json);

}  // namespace saccade
