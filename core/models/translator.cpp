#include "models/translator.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "models/model_family.h"
#include "models/model_loading.h"

namespace saccade {

std::string Translator::detokenize(const std::vector<std::string>& tokens) const { return joinTokens(tokens, tokenKind()); }

std::vector<std::string> Translator::splitTarget(const std::string& text) const { return splitText(text, tokenKind()); }

std::vector<std::string> splitText(const std::string& text, SeqTokenKind kind) {
    std::vector<std::string> out;
    if (kind == SeqTokenKind::Words) {
        std::string word;
        for (char c : text) {
            if (std::isspace(static_cast<unsigned char>(c))) {
                if (!word.empty()) out.push_back(word);
                word.clear();
            } else {
                word += c;
            }
        }
        if (!word.empty()) out.push_back(word);
        return out;
    }
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        bool valid = len > 0 && i + len <= text.size();
        for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
        out.push_back(valid ? text.substr(i, len) : std::string("\xef\xbf\xbd"));
        i += valid ? len : 1;
    }
    return out;
}

Result<std::shared_ptr<const Translator>> openTranslator(const std::string& path, const std::string& device) {
    if (isScriptImport(path)) {
        for (const ModelFamily* f : modelFamilies())
            if (f->opensImports && f->openText) return f->openText(path, device);
        return Error{"'" + path + "' has no Saccade sidecar, and this build opens no imported translators"};
    }
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    const ModelFamily* family = findFamily(info->modelType);
    if (!family) return Error{"checkpoint '" + path + "' holds a '" + info->modelType + "' model, which this version does not know"};
    if (!family->openText)
        return Error{"checkpoint '" + path + "' holds " + family->noun + ", which reads images: use trace, eval --dataset, "
                     "render --image or the Attention page"};
    return family->openText(path, device);
}

bool fileReadsText(const std::string& path) {
    if (isScriptImport(path)) {
        for (const ModelFamily* f : modelFamilies())
            if (f->opensImports && f->holdsText && f->holdsText(path)) return true;
        return false;
    }
    const auto info = readCheckpointInfo(path);
    const ModelFamily* family = info ? findFamily(info->modelType) : nullptr;
    return family && family->readsText;
}

namespace {
nlohmann::json permutationJson(const SeqEvalReport& r) {
    if (!r.permutationTested) return {{"note", "not run: " + r.permutationNote}};
    return {{"median_tv", r.permutationMedianTv},
            {"mean_tv", r.permutationMeanTv},
            {"share_below_0.05", r.permutationSmallShare},
            {"note", "attention shuffled over the source at every step, output change as total variation distance "
                     "(Jain and Wallace 2019); attention is a record of access, not an explanation"}};
}
}  // namespace

std::string seqEvalReportToJson(const SeqEvalReport& r) {
    nlohmann::json lengths = nlohmann::json::array();
    for (const auto& b : r.byLength)
        lengths.push_back({{"length", b.length}, {"n", b.n}, {"exact_match", b.exactMatch}, {"seen_in_training", b.seenInTraining}});
    return nlohmann::json{{"model", r.model},
                          {"task", r.task.empty() ? nlohmann::json() : nlohmann::json(r.task)},
                          {"split", r.data},
                          {"rule", r.rule},
                          {"sentences", r.n},
                          {"exact_match", r.exactMatch},
                          {"token_accuracy", r.tokenAccuracy},
                          {"aer", r.aerMeasured ? nlohmann::json(r.aer) : nlohmann::json()},
                          {"aer_sentences", r.aerSentences},
                          {"aer_definition", r.aerSource},
                          {"attention_entropy", r.entropy},
                          {"permutation", permutationJson(r)},
                          {"by_length", lengths},
                          {"unknown_source_words", r.unknownSourceWords},
                          {"sentences_with_unknown_words", r.sentencesWithUnknown},
                          {"unknown_examples", r.unknownExamples},
                          {"unwritable_target_tokens", r.unwritableTargetTokens},
                          {"unwritable_examples", r.unwritableExamples},
                          {"seconds", r.seconds}}
        .dump(2);
}

}  // namespace saccade
