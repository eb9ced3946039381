#pragma once
// Configuration of the native Vision Transformer (plain types, stored in checkpoint sidecars):
// square patches of a square image (optionally shifted patch tokens), a CLS token, learned
// positions, pre-norm layers.

#include <string>

#include "common/result.h"

namespace saccade {

struct VitConfig {
    int inChannels = 1;
    int imageSize = 60;
    int patch = 6;      ///< side of a patch; imageSize must be a multiple
    int dim = 64;       ///< token width; a multiple of heads
    int layers = 4;
    int heads = 4;
    int mlp = 128;      ///< hidden width of each layer's MLP
    int classes = 10;
    double dropout = 0.0;
    /// Shifted patch tokenization (Lee et al. 2021): each token also sees its image shifted half a
    /// patch in the four diagonal directions, through a layer norm and a linear embedding.
    bool shiftedPatches = false;
    int grid() const { return imageSize / patch; }
};

/// Checks sizes; the error says which field is wrong.
Result<VitConfig> validateVitConfig(const VitConfig& config);

std::string vitConfigToJson(const VitConfig& config);
Result<VitConfig> vitConfigFromJson(const std::string& json);

}  // namespace saccade
