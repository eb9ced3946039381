#include "models/caption/caption_config.h"

#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace saccade {

Result<CaptionConfig> validateCaptionConfig(const CaptionConfig& c) {
    if (c.inChannels != 1 && c.inChannels != 3) return Error{"in_channels must be 1 or 3"};
    if (c.grid < 1 || c.grid > 32) return Error{"grid must be 1..32"};
    const int factor = c.grid > 0 ? c.imageSize / c.grid : 0;
    if (c.imageSize % c.grid != 0 || (factor != 1 && factor != 2 && factor != 4 && factor != 8) || c.imageSize > 512)
        return Error{"image_size / grid must be 1, 2, 4 or 8 (got image_size " + std::to_string(c.imageSize) +
                     " and grid " + std::to_string(c.grid) + ")"};
    if (c.featureDim < 1 || c.embed < 1 || c.hidden < 1 || c.attnHidden < 1 || c.featureDim > 4096 ||
        c.embed > 4096 || c.hidden > 4096 || c.attnHidden > 4096)
        return Error{"layer sizes must be 1..4096"};
    if (c.maxLength < 3 || c.maxLength > 64) return Error{"max_length must be 3..64"};
    if (!(c.dropout >= 0 && c.dropout < 1)) return Error{"dropout must be in [0, 1)"};
    if (c.scorer != "additive" && c.scorer != "dot" && c.scorer != "general" && c.scorer != "scaled-dot")
        return Error{"unknown scorer '" + c.scorer + "' (use additive, dot, general or scaled-dot)"};
    if ((c.scorer == "dot" || c.scorer == "scaled-dot") && c.hidden != c.featureDim)
        return Error{c.scorer + " scoring needs hidden == feature_dim"};
    if (c.encoder != "wide" && c.encoder != "local")
        return Error{"unknown encoder '" + c.encoder + "' (use local or wide)"};
    if (c.vocabulary.size() < 5 || c.vocabulary.size() > 100000 || c.vocabulary[kStartToken] != "<start>" ||
        c.vocabulary[kEndToken] != "<end>" || c.vocabulary[kPadToken] != "<pad>" ||
        c.vocabulary[kUnknownToken] != "<unk>")
        return Error{"the vocabulary must start with <start>, <end>, <pad>, <unk> and hold at least one word"};
    if (c.mode != TrainingMode::Soft && c.mode != TrainingMode::Hard && c.mode != TrainingMode::Gumbel)
        return Error{"unknown training mode '" + trainingModeName(c.mode) + "' (use soft, hard or gumbel)"};
    return c;
}

std::string captionConfigToJson(const CaptionConfig& c) {
    return nlohmann::json{{"in_channels", c.inChannels}, {"image_size", c.imageSize}, {"grid", c.grid},
                          {"feature_dim", c.featureDim}, {"embed", c.embed},         {"hidden", c.hidden},
                          {"attn_hidden", c.attnHidden}, {"max_length", c.maxLength}, {"dropout", c.dropout},
                          {"scorer", c.scorer},          {"mode", trainingModeName(c.mode)},           {"encoder", c.encoder},
                          {"cell_positions", c.cellPositions},           {"vocabulary", c.vocabulary}}
        .dump();
}

Result<CaptionConfig> captionConfigFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"model config is not a JSON object"};
    CaptionConfig c;
    try {
        c.inChannels = intField(j, "in_channels", 1, 3);
        c.imageSize = intField(j, "image_size", 1, 512);
        c.grid = intField(j, "grid", 1, 32);
        c.featureDim = intField(j, "feature_dim", 1, 4096);
        c.embed = intField(j, "embed", 1, 4096);
        c.hidden = intField(j, "hidden", 1, 8192);
        c.attnHidden = intField(j, "attn_hidden", 1, 4096);
        c.maxLength = intField(j, "max_length", 1, 64);
        c.dropout = numberField(j, "dropout", 0, 1);
        c.scorer = stringField(j, "scorer");
        auto mode = parseAttentionTrainingMode(stringField(j, "mode"));
        if (!mode) return Error{"model config: " + mode.error()};
        c.mode = *mode;
        c.encoder = j.contains("encoder") ? stringField(j, "encoder") : "wide";
        c.cellPositions = j.contains("cell_positions") && boolField(j, "cell_positions");
        c.vocabulary = j.at("vocabulary").get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("model config: ") + firstLine(e.what())};
    } catch (const JsonFieldError& e) {
        return Error{std::string("model config: ") + e.what()};
    }
    return validateCaptionConfig(c);
}

}  // namespace saccade
