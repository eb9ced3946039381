// TorchScript imports' registration: a model of the user's own, opened from a file with no Saccade
// sidecar (models/model_family.h). Saccade trains none, so it has no fields and no trainer. The
// file is opened once; a module with a `caption` method is a captioner (ScriptCaptioner), any
// other a classifier under the forward contract (ScriptModel).
#include "models/model_family.h"
#include "models/script/script_archive.h"
#include "models/script/script_captioner.h"
#include "models/script/script_model.h"

namespace saccade {

namespace {

Result<std::shared_ptr<AttentionModel>> openScriptImport(const std::string& path, const std::string& device,
                                                         const InputOverrides& input) {
    auto archive = openScriptArchive(path, device);
    if (!archive) return Error{archive.error()};
    if (ScriptCaptioner::isCaptioner(*archive)) {
        auto c = ScriptCaptioner::load(*archive, input);
        if (!c) return Error{c.error()};
        return std::shared_ptr<AttentionModel>(*c);
    }
    auto m = ScriptModel::load(*archive, input);
    if (!m) return Error{m.error()};
    return std::shared_ptr<AttentionModel>(*m);
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
    f.listLine = [](const std::string&, const std::string&) { return std::string("TorchScript (no sidecar)"); };
    return f;
}

}  // namespace saccade
