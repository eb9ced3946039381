#include "models/patch/patch_config.h"

#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace saccade {

Result<PatchConfig> validatePatchConfig(const PatchConfig& c) {
    if (c.inChannels != 1 && c.inChannels != 3) return Error{"in_channels must be 1 or 3"};
    if (c.grid < 1 || c.grid > 64) return Error{"grid must be 1..64"};
    if (c.imageSize < 2 * c.grid || c.imageSize % (2 * c.grid) != 0 || c.imageSize > 1024)
        return Error{"image_size must be a multiple of 2 x grid (got " +
                     std::to_string(c.imageSize) + " and grid " + std::to_string(c.grid) + ")"};
    if (c.featureDim < 1 || c.hidden < 1 || c.attnHidden < 1) return Error{"layer sizes must be positive"};
    if (c.steps < 1 || c.steps > 64) return Error{"steps must be 1..64"};
    if (c.classes < 2) return Error{"classes must be at least 2"};
    if (c.scorer != "additive" && c.scorer != "dot" && c.scorer != "general" && c.scorer != "scaled-dot")
        return Error{"unknown scorer '" + c.scorer + "'"};
    if ((c.scorer == "dot" || c.scorer == "scaled-dot") && c.hidden != c.featureDim)
        return Error{c.scorer + " scoring needs hidden == feature_dim"};
    if (c.variant != "dense" && c.variant != "select")
        return Error{"unknown variant '" + c.variant + "' (use dense or select)"};
    if (c.mode != TrainingMode::Soft && c.mode != TrainingMode::Hard && c.mode != TrainingMode::Gumbel)
        return Error{"unknown training mode '" + trainingModeName(c.mode) + "' (use soft, hard or gumbel)"};
    return c;
}

std::string patchConfigToJson(const PatchConfig& c) {
    return nlohmann::json{{"in_channels", c.inChannels}, {"image_size", c.imageSize},
                          {"grid", c.grid},             {"feature_dim", c.featureDim},
                          {"hidden", c.hidden},         {"attn_hidden", c.attnHidden},
                          {"steps", c.steps},           {"classes", c.classes},
                          {"scorer", c.scorer},         {"mode", trainingModeName(c.mode)},
                          {"variant", c.variant}}
        .dump();
}

Result<PatchConfig> patchConfigFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"model config is not a JSON object"};
    PatchConfig c;
    try {
        c.inChannels = intField(j, "in_channels", 1, 3);
        c.imageSize = intField(j, "image_size", 1, 1024);
        c.grid = intField(j, "grid", 1, 64);
        c.featureDim = intField(j, "feature_dim", 1, 4096);
        c.hidden = intField(j, "hidden", 1, 8192);
        c.attnHidden = intField(j, "attn_hidden", 1, 4096);
        c.steps = intField(j, "steps", 1, 64);
        c.classes = intField(j, "classes", 2, 100000);
        c.scorer = stringField(j, "scorer");
        auto mode = parseAttentionTrainingMode(stringField(j, "mode"));
        if (!mode) return Error{"model config: " + mode.error()};
        c.mode = *mode;
        c.variant = j.contains("variant") ? stringField(j, "variant") : "dense";
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("model config: ") + firstLine(e.what())};
    } catch (const JsonFieldError& e) {
        return Error{std::string("model config: ") + e.what()};
    }
    return validatePatchConfig(c);
}

}  // namespace saccade
