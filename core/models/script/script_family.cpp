// TorchScript imports' registration: a model of the user's own, opened from a file with no Saccade
// sidecar (models/model_family.h). Saccade trains none, so it has no fields and no trainer.
#include "models/model_family.h"
#include "models/script/script_model.h"

namespace saccade {

ModelFamily scriptFamily() {
    ModelFamily f;
    f.name = "torchscript";
    f.title = "TorchScript import";
    f.noun = "an imported TorchScript model";
    f.opensImports = true;
    f.open = openWith<ScriptModel>();
    f.openWithInput = [](const std::string& path, const std::string& device,
                         const InputOverrides& input) -> Result<std::shared_ptr<AttentionModel>> {
        auto m = ScriptModel::load(path, device, input);
        if (!m) return Error{m.error()};
        return std::shared_ptr<AttentionModel>(*m);
    };
    f.listLine = [](const std::string&, const std::string&) { return std::string("TorchScript (no sidecar)"); };
    return f;
}

}  // namespace saccade
