// TorchScript imports' registration: a model of the user's own, opened from a file with no Saccade
// sidecar (models/model_family.h). Saccade trains none, so it has no fields and no trainer. The
// file is opened once; a module with a `translate` method is a translator, which reads text
// (ScriptTranslator); one with an `encode` method a text encoder, which reads text too
// (ScriptTextEncoder); one with a `caption` method a captioner (ScriptCaptioner); any other a
// classifier under the forward contract (ScriptModel).
#include <algorithm>

#include "models/model_family.h"
#include "models/script/script_archive.h"
#include "models/script/script_captioner.h"
#include "models/script/script_cost.h"
#include "models/script/script_model.h"
#include "models/script/script_text_encoder.h"
#include "models/script/script_translator.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {

Result<std::shared_ptr<AttentionModel>> openScriptImport(const std::string& path, const std::string& device,
                                                         const InputOverrides& input) {
    auto archive = openScriptArchive(path, device);
    if (!archive) return Error{archive.error()};
    if (ScriptTranslator::isTranslator(*archive))
        return Error{"model '" + path + "' is a translator (it has a translate method), which reads text: use translate, "
                     "eval --pairs, render --text or the GUI's Sequences page"};
    if (ScriptTextEncoder::isTextEncoder(*archive))
        return Error{"model '" + path + "' is a text encoder (it has an encode method), which reads text: use translate, "
                     "similarity, render --text or the GUI's Sequences page"};
    if (ScriptCaptioner::isCaptioner(*archive)) {
        auto c = ScriptCaptioner::load(*archive, input);
        if (!c) return Error{c.error()};
        return std::shared_ptr<AttentionModel>(*c);
    }
    auto m = ScriptModel::load(*archive, input);
    if (!m) return Error{m.error()};
    return std::shared_ptr<AttentionModel>(*m);
}

Result<std::shared_ptr<const Translator>> openScriptTranslator(const std::string& path, const std::string& device) {
    auto archive = openScriptArchive(path, device);
    if (!archive) return Error{archive.error()};
    if (ScriptTextEncoder::isTextEncoder(*archive) && !ScriptTranslator::isTranslator(*archive)) {
        auto e = ScriptTextEncoder::load(*archive);
        if (!e) return Error{e.error()};
        return std::shared_ptr<const Translator>(*e);
    }
    if (!ScriptTranslator::isTranslator(*archive))
        return Error{"model '" + path + "' has neither a translate nor an encode method, so it does not read text: open it "
                     "as an image model (trace, eval --dataset, the Attention page)"};
    auto t = ScriptTranslator::load(*archive);
    if (!t) return Error{t.error()};
    return std::shared_ptr<const Translator>(*t);
}

/// An import's attention is the softmax weights its contract returns: no queries and keys.
Result<AttentionRecording> refuseImportAttention(const std::string& path, const AttentionRecordRequest& request) {
    const auto& need = request.need;
    if (ScriptTranslator::fileDefinesTranslate(path))
        return Error{path + " is an imported translator: its attention weights are softmax outputs, and " + need +
                     ", which the contract does not return"};
    if (ScriptTextEncoder::fileDefinesEncode(path))
        return Error{path + " is an imported text encoder: its self-attentions are softmax outputs, and " + need +
                     ", which the contract does not return"};
    auto model = openScriptImport(path, "cpu", {});
    if (!model) return Error{model.error()};
    const auto rules = (*model)->ruleMenu().rules;
    if (std::any_of(rules.begin(), rules.end(), [](const std::string& r) { return isRule(r, RuleKind::Rollout); }))
        return Error{path + " is an imported transformer: its 'attentions' are softmax weights, and " + need +
                     ", which the contract does not return"};
    return Error{path + " has no self-attention layers (a Transformer or ViT has)"};
}

}  // namespace

ModelFamily scriptFamily() {
    ModelFamily f({"torchscript", "TorchScript import", "an imported TorchScript model",
                   "A TorchScript file of the user's (no sidecar): an image classifier, a captioner, a translator or a "
                   "text encoder under its contract (docs/model-contract.md); it trains nothing."},
                  FamilyOpeners::both([](const std::string& path, const std::string& device) { return openScriptImport(path, device, {}); },
                                      openScriptTranslator));
    f.opensImports = true;
    f.openWithInput = openScriptImport;
    f.holdsText = [](const std::string& path) {
        return ScriptTranslator::fileDefinesTranslate(path) || ScriptTextEncoder::fileDefinesEncode(path);
    };
    f.listLine = [](const std::string&, const std::string&) { return std::string("TorchScript (no sidecar)"); };
    f.importCost = scriptImportCost;
    f.recordAttentionInputs = refuseImportAttention;
    f.costTimedRules = 1;
    return f;
}

}  // namespace saccade
