#pragma once
// Configuration of the Recurrent Attention Model (Mnih et al. 2014): plain types, stored in
// checkpoint sidecars.

#include <string>

#include "common/result.h"

namespace saccade {

struct RamConfig {
    int inChannels = 1;
    int imageSize = 60;     ///< square inputs
    int glimpseSize = 12;   ///< g: every scale is resized to g x g
    int scales = 3;         ///< k patches, each s times wider than the one before
    int scaleFactor = 2;    ///< s
    int glimpses = 6;       ///< T steps
    int glimpseHidden = 128;  ///< h_g and h_l
    int glimpseDim = 256;     ///< g_t
    int hidden = 256;         ///< core state
    std::string core = "rnn"; ///< "rnn" (ReLU) or "lstm"
    double locationStd = 0.15; ///< fixed standard deviation of the Gaussian policy, in [-1, 1] units
    int classes = 10;
};

/// The glimpse sizes of Mnih et al. for an input size: 28 -> g 8, k 1; 60 -> g 12, k 3, s 2;
/// 100 -> g 12, k 4, s 2; other sizes get g = size / 5, k 3.
RamConfig defaultRamConfig(int imageSize, int channels = 1, int classes = 10);

/// Checks sizes and names; the error says which field is wrong.
Result<RamConfig> validateRamConfig(const RamConfig& config);

std::string ramConfigToJson(const RamConfig& config);
Result<RamConfig> ramConfigFromJson(const std::string& json);

}  // namespace saccade
