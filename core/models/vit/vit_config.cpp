#include "models/vit/vit_config.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace saccade {

Result<VitConfig> validateVitConfig(const VitConfig& c) {
    if (c.inChannels != 1 && c.inChannels != 3) return Error{"in_channels must be 1 or 3"};
    if (c.patch < 1 || c.imageSize < c.patch || c.imageSize % c.patch != 0 || c.imageSize > 1024)
        return Error{"image_size must be a multiple of the patch side (got " + std::to_string(c.imageSize) + " and patch " +
                     std::to_string(c.patch) + ")"};
    if (c.grid() * c.grid() > 4096) return Error{"at most 4,096 patches (64 x 64)"};
    if (c.heads < 1 || c.heads > 64) return Error{"heads must be 1..64"};
    if (c.dim < c.heads || c.dim % c.heads != 0 || c.dim > 4096)
        return Error{"dim must be a multiple of heads, at most 4096 (got dim " + std::to_string(c.dim) + ", heads " +
                     std::to_string(c.heads) + ")"};
    if (c.layers < 1 || c.layers > 48) return Error{"layers must be 1..48"};
    if (c.mlp < 1 || c.mlp > 16384) return Error{"mlp must be 1..16384"};
    if (c.classes < 2) return Error{"classes must be at least 2"};
    if (!std::isfinite(c.dropout) || c.dropout < 0 || c.dropout >= 1) return Error{"dropout must be in [0, 1)"};
    return c;
}

std::string vitConfigToJson(const VitConfig& c) {
    return nlohmann::json{{"in_channels", c.inChannels}, {"image_size", c.imageSize}, {"patch", c.patch},
                          {"dim", c.dim},                {"layers", c.layers},         {"heads", c.heads},
                          {"mlp", c.mlp},                {"classes", c.classes},       {"dropout", c.dropout},
                          {"shifted_patches", c.shiftedPatches}}
        .dump();
}

Result<VitConfig> vitConfigFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"model config is not a JSON object"};
    VitConfig c;
    try {
        c.inChannels = intField(j, "in_channels", 1, 3);
        c.imageSize = intField(j, "image_size", 1, 1024);
        c.patch = intField(j, "patch", 1, 1024);
        c.dim = intField(j, "dim", 1, 4096);
        c.layers = intField(j, "layers", 1, 48);
        c.heads = intField(j, "heads", 1, 64);
        c.mlp = intField(j, "mlp", 1, 16384);
        c.classes = intField(j, "classes", 2, 100000);
        if (!j.contains("dropout") || !j["dropout"].is_number()) throw JsonFieldError("'dropout' must be a number");
        c.dropout = j["dropout"].get<double>();
        // Absent in models trained before shifted patches were built: plain patches.
        if (j.contains("shifted_patches")) c.shiftedPatches = boolField(j, "shifted_patches");
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("model config: ") + firstLine(e.what())};
    } catch (const JsonFieldError& e) {
        return Error{std::string("model config: ") + e.what()};
    }
    return validateVitConfig(c);
}

}  // namespace saccade
