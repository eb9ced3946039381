#include "models/seq/seq_config.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "io/json_fields.h"

namespace saccade {

Result<SeqConfig> validateSeqConfig(const SeqConfig& c) {
    if (c.sourceVocab < 5 || c.sourceVocab > 100000 || c.targetVocab < 5 || c.targetVocab > 100000)
        return Error{"vocabularies must hold 5..100,000 tokens"};
    if (c.maxTarget < 2 || c.maxTarget > 1000) return Error{"max_target must be 2..1000"};
    if (c.transformer()) {
        if (c.layers < 1 || c.layers > 12) return Error{"layers must be 1..12"};
        if (c.heads < 1 || c.heads > 16) return Error{"heads must be 1..16"};
        if (c.dim < c.heads || c.dim % c.heads != 0 || c.dim > 2048)
            return Error{"dim must be a multiple of heads, at most 2048 (got dim " + std::to_string(c.dim) + ", heads " +
                         std::to_string(c.heads) + ")"};
        if (c.ff < 1 || c.ff > 8192) return Error{"ff must be 1..8192"};
        if (c.alignment != "soft") return Error{"a Transformer's attention is soft only (alignment soft)"};
        return c;
    }
    if (c.architecture != "rnn") return Error{"architecture must be rnn or transformer, got '" + c.architecture + "'"};
    if (c.cell != "gru" && c.cell != "lstm") return Error{"cell must be gru or lstm, got '" + c.cell + "'"};
    if (c.scorer != "additive" && c.scorer != "dot" && c.scorer != "general" && c.scorer != "scaled-dot" && !c.localP())
        return Error{"scorer must be additive, dot, general, scaled-dot or local-p, got '" + c.scorer + "'"};
    if (c.alignment != "soft" && c.alignment != "hard")
        return Error{"alignment must be soft or hard, got '" + c.alignment + "'"};
    for (auto [v, name] : {std::pair{c.embed, "embed"}, {c.encoderHidden, "encoder_hidden"}, {c.decoderHidden, "decoder_hidden"},
                           {c.attention, "attention"}})
        if (v < 1 || v > 4096) return Error{std::string(name) + " must be 1..4096, got " + std::to_string(v)};
    if ((c.scorer == "dot" || c.scorer == "scaled-dot") && c.decoderHidden != c.keyDim())
        return Error{"the " + c.scorer + " scorer needs decoder_hidden = 2 x encoder_hidden (" + std::to_string(c.keyDim()) +
                     "), got " + std::to_string(c.decoderHidden)};
    if (!std::isfinite(c.window) || c.window < 1 || c.window > 100) return Error{"window must be in [1, 100]"};
    return c;
}

std::string seqConfigToJson(const SeqConfig& c) {
    if (c.transformer())
        return nlohmann::json{{"architecture", "transformer"}, {"task", c.task},       {"alignment", c.alignment},
                              {"layers", c.layers},            {"heads", c.heads},     {"dim", c.dim},
                              {"ff", c.ff},                    {"source_vocab", c.sourceVocab},
                              {"target_vocab", c.targetVocab}, {"max_target", c.maxTarget}}
            .dump();
    return nlohmann::json{{"architecture", "rnn"},        {"task", c.task},
                          {"cell", c.cell},               {"scorer", c.scorer},
                          {"alignment", c.alignment},     {"embed", c.embed},
                          {"encoder_hidden", c.encoderHidden}, {"decoder_hidden", c.decoderHidden},
                          {"attention", c.attention},     {"window", c.window},
                          {"source_vocab", c.sourceVocab}, {"target_vocab", c.targetVocab},
                          {"max_target", c.maxTarget}}
        .dump();
}

Result<SeqConfig> seqConfigFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"model config is not a JSON object"};
    SeqConfig c;
    try {
        c.architecture = stringField(j, "architecture");
        if (c.architecture != "rnn" && c.architecture != "transformer")
            return Error{"model config: architecture '" + c.architecture + "' is not one this build knows (rnn, transformer)"};
        c.task = stringField(j, "task");
        c.alignment = stringField(j, "alignment");
        c.sourceVocab = int(intField(j, "source_vocab", 5, 100000));
        c.targetVocab = int(intField(j, "target_vocab", 5, 100000));
        c.maxTarget = int(intField(j, "max_target", 2, 1000));
        if (c.transformer()) {
            c.layers = int(intField(j, "layers", 1, 12));
            c.heads = int(intField(j, "heads", 1, 16));
            c.dim = int(intField(j, "dim", 1, 2048));
            c.ff = int(intField(j, "ff", 1, 8192));
            return validateSeqConfig(c);
        }
        c.cell = stringField(j, "cell");
        c.scorer = stringField(j, "scorer");
        c.embed = int(intField(j, "embed", 1, 4096));
        c.encoderHidden = int(intField(j, "encoder_hidden", 1, 4096));
        c.decoderHidden = int(intField(j, "decoder_hidden", 1, 4096));
        c.attention = int(intField(j, "attention", 1, 4096));
        c.window = numberField(j, "window", 1, 100);
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("model config: ") + firstLine(e.what())};
    } catch (const JsonFieldError& e) {
        return Error{std::string("model config: ") + e.what()};
    }
    return validateSeqConfig(c);
}

}  // namespace saccade
