#pragma once
// What a user sets over a model's own preprocessing, on the CLI (--resize, --center-crop, --mean,
// --std) or in the GUI's Model tab: the resize, the centre crop, and the normalisation (the mean
// and std of each channel, or the preset "imagenet"). Fields left empty keep the model's.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace saccade {

/// torchvision's ImageNet normalisation, the preset "imagenet".
inline const std::vector<float> kImagenetMean{0.485f, 0.456f, 0.406f};
inline const std::vector<float> kImagenetStd{0.229f, 0.224f, 0.225f};

struct InputOverrides {
    std::optional<int> resize;                     ///< the shorter side after resizing
    std::optional<std::pair<int, int>> crop;       ///< the centre crop, height x width
    std::vector<float> mean, std;                  ///< per channel, or one value; empty: the model's
    bool any() const { return resize || crop || !mean.empty(); }
};

/// "224" or "224x160" (height x width), each side 1..8192.
Result<std::pair<int, int>> parseCropSide(const std::string& text, const std::string& what);
/// "imagenet" (then `preset` is the ImageNet mean or std, as `isStd` says) or 1 to 4 finite
/// numbers "0.5" or "0.485,0.456,0.406"; a std must be positive.
Result<std::vector<float>> parseChannelValues(const std::string& text, const std::string& what, bool isStd);

/// The overrides from the CLI's texts (empty: not given): each checked, mean and std together and of
/// one length, a crop no larger than the resize. `where` prefixes nothing; errors name the option.
Result<InputOverrides> parseInputOverrides(const std::string& resize, const std::string& crop, const std::string& mean,
                                           const std::string& std);

/// "mean 0.485,0.456,0.406 std 0.229,0.224,0.225 (imagenet)", or "none" without a normalisation.
std::string describeNormalisation(const std::vector<float>& mean, const std::vector<float>& std);

}  // namespace saccade
