// TorchScript imports' registration: a model of the user's own, opened from a file with no Saccade
// sidecar (models/model_family.h). Saccade trains none, so it has no fields and no trainer. The
// file is opened once; a module with a `translate` method is a translator, which reads text
// (ScriptTranslator); one with a `caption` method a captioner (ScriptCaptioner); any other a
// classifier under the forward contract (ScriptModel).
#include "models/model_family.h"
#include "models/script/script_archive.h"
#include "models/script/script_captioner.h"
#include "models/script/script_cost.h"
#include "models/script/script_model.h"
#include "models/script/script_translator.h"

namespace saccade {

namespace {

Result<std::shared_ptr<AttentionModel>> openScriptImport(const std::string& path, const std::string& device,
                                                         const InputOverrides& input) {
    auto archive = openScriptArchive(path, device);
    if (!archive) return Error{archive.error()};
    if (ScriptTranslator::isTranslator(*archive))
        return Error{"model '" + path + "' is a translator (it has a translate method), which reads text: use translate, "
                     "eval --pairs, render --text or the GUI's Sequences page"};
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
    if (!ScriptTranslator::isTranslator(*archive))
        return Error{"model '" + path + "' has no translate method, so it does not read text: open it as an image model "
                     "(trace, eval --dataset, the Attention page)"};
    auto t = ScriptTranslator::load(*archive);
    if (!t) return Error{t.error()};
    return std::shared_ptr<const Translator>(*t);
}

}  // namespace

ModelFamily scriptFamily() {
    ModelFamily f;
    f.name = "torchscript";
    f.title = "TorchScript import";
    f.noun = "an imported TorchScript model";
    f.opensImports = true;
    f.open = [](const std::string& path, const std::string& device) { return openScriptImport(path, device, {}); };
    f.openWithInput = openScriptImport;
    f.openText = openScriptTranslator;
    f.holdsText = ScriptTranslator::fileDefinesTranslate;
    f.listLine = [](const std::string&, const std::string&) { return std::string("TorchScript (no sidecar)"); };
    f.importCost = scriptImportCost;
    f.costTimedRules = 1;
    return f;
}

}  // namespace saccade
