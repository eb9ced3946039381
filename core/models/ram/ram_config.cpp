#include "models/ram/ram_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace saccade {

RamConfig defaultRamConfig(int imageSize, int channels, int classes) {
    RamConfig c;
    c.imageSize = imageSize;
    c.inChannels = channels;
    c.classes = classes;
    if (imageSize <= 28) {
        c.glimpseSize = 8;
        c.scales = 1;
    } else if (imageSize <= 60) {
        c.glimpseSize = 12;
        c.scales = 3;
    } else if (imageSize <= 100) {
        c.glimpseSize = 12;
        c.scales = 4;
    } else {
        c.glimpseSize = std::max(4, imageSize / 5);
        c.scales = 3;
    }
    return c;
}

Result<RamConfig> validateRamConfig(const RamConfig& c) {
    if (c.inChannels != 1 && c.inChannels != 3) return Error{"in_channels must be 1 or 3"};
    if (c.imageSize < 4 || c.imageSize > 1024) return Error{"image_size must be 4..1024"};
    if (c.glimpseSize < 1 || c.glimpseSize > c.imageSize)
        return Error{"glimpse_size must be 1..image_size (got " + std::to_string(c.glimpseSize) + ")"};
    if (c.scales < 1 || c.scales > 6) return Error{"scales must be 1..6"};
    if (c.scaleFactor < 1 || c.scaleFactor > 4) return Error{"scale_factor must be 1..4"};
    if (c.glimpseSize * std::pow(c.scaleFactor, c.scales - 1) > 4 * c.imageSize)
        return Error{"the widest glimpse is more than 4 times the image"};
    if (c.glimpses < 1 || c.glimpses > 64) return Error{"glimpses must be 1..64"};
    if (c.glimpseHidden < 1 || c.glimpseDim < 1 || c.hidden < 1) return Error{"layer sizes must be positive"};
    if (c.core != "rnn" && c.core != "lstm") return Error{"unknown core '" + c.core + "' (use rnn or lstm)"};
    if (!(c.locationStd > 0 && c.locationStd <= 2)) return Error{"location_std must be in (0, 2]"};
    // The glimpse network's first layer: bounded so that a sidecar cannot ask for gigabytes.
    const double glimpseWeights = double(c.glimpseSize) * c.glimpseSize * c.scales * c.inChannels * c.glimpseHidden;
    if (glimpseWeights > double(1 << 27))
        return Error{"the glimpse network would hold " + std::to_string(std::int64_t(glimpseWeights / 1e6)) +
                     " million weights, over the limit of 134 million"};
    if (c.classes < 2) return Error{"classes must be at least 2"};
    return c;
}

std::string ramConfigToJson(const RamConfig& c) {
    return nlohmann::json{{"in_channels", c.inChannels},   {"image_size", c.imageSize},
                          {"glimpse_size", c.glimpseSize}, {"scales", c.scales},
                          {"scale_factor", c.scaleFactor}, {"glimpses", c.glimpses},
                          {"glimpse_hidden", c.glimpseHidden}, {"glimpse_dim", c.glimpseDim},
                          {"hidden", c.hidden},            {"core", c.core},
                          {"location_std", c.locationStd}, {"classes", c.classes}}
        .dump();
}

Result<RamConfig> ramConfigFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"model config is not a JSON object"};
    RamConfig c;
    try {
        c.inChannels = intField(j, "in_channels", 1, 3);
        c.imageSize = intField(j, "image_size", 1, 1024);
        c.glimpseSize = intField(j, "glimpse_size", 1, 512);
        c.scales = intField(j, "scales", 1, 8);
        c.scaleFactor = intField(j, "scale_factor", 1, 16);
        c.glimpses = intField(j, "glimpses", 1, 64);
        c.glimpseHidden = intField(j, "glimpse_hidden", 1, 8192);
        c.glimpseDim = intField(j, "glimpse_dim", 1, 8192);
        c.hidden = intField(j, "hidden", 1, 8192);
        c.core = stringField(j, "core");
        c.locationStd = numberField(j, "location_std", 1e-6, 10);
        c.classes = intField(j, "classes", 2, 100000);
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("model config: ") + firstLine(e.what())};
    } catch (const JsonFieldError& e) {
        return Error{std::string("model config: ") + e.what()};
    }
    return validateRamConfig(c);
}

}  // namespace saccade
