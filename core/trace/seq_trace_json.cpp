#include "trace/seq_trace_json.h"

#include <nlohmann/json.hpp>

namespace saccade {

std::string seqTranslationToJson(const SeqTranslation& t, const std::string& modelPath, const std::string& task) {
    nlohmann::json steps = nlohmann::json::array();
    for (std::size_t i = 0; i < t.tokens.size() && i < t.topWords.size() && i < t.entropy.size(); ++i) {
        nlohmann::json top = nlohmann::json::array();
        for (const auto& [word, p] : t.topWords[i]) top.push_back({{"token", word}, {"p", p}});
        nlohmann::json step{{"token", t.tokens[i]}, {"chosen", t.chosen[i]}, {"entropy", t.entropy[i]}, {"top_words", top}};
        if (!t.centre.empty()) step["centre"] = t.centre[i];
        steps.push_back(step);
    }
    nlohmann::json j{{"schema", "saccade.seq-trace"},
                     {"version", kSeqTraceVersion},
                     {"model", modelPath},
                     {"task", task.empty() ? nlohmann::json() : nlohmann::json(task)},  // null: an import without a task
                     {"rule", t.rule},
                     {"seed", t.seed},
                     {"source", t.source},
                     {"unknown", t.unknown},
                     {"output", t.output},
                     {"tokens", t.tokens},
                     {"finished", t.finished},
                     {"alignment", t.alignment},
                     {"steps", steps}};
    if (!t.maps.empty()) {
        nlohmann::json maps = nlohmann::json::array();
        for (const auto& m : t.maps) maps.push_back({{"name", m.name}, {"kind", m.kind}, {"weights", m.weights}});
        j["maps"] = maps;
    }
    if (!t.embedding.empty()) j["embedding"] = t.embedding;  // a text encoder's sentence embedding
    if (t.hasReference) {
        j["reference"] = {{"output", t.reference.target}, {"sure", t.reference.sure}, {"possible", t.reference.possible}};
        j["correct"] = t.correct();
    } else {
        j["reference_error"] = t.referenceError;
    }
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {
std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n ") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}
}  // namespace

std::string seqAlignmentToCsv(const SeqTranslation& t) {
    std::string out = "target";
    for (const auto& s : t.source) out += "," + csvField(s);
    out += "\n";
    for (std::size_t i = 0; i < t.tokens.size(); ++i) {
        out += csvField(t.tokens[i]);
        for (double w : t.alignment[i]) {
            char buf[32];
            std::snprintf(buf, sizeof buf, ",%.6f", w);
            out += buf;
        }
        out += "\n";
    }
    return out;
}

}  // namespace saccade
