#include "models/model_loading.h"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/atomic_file.h"
#include "common/device.h"
#include "models/model_family.h"
#include "models/model_input.h"
#include "common/torch_errors.h"

namespace saccade {

Result<CheckpointHeader> openCheckpoint(const std::string& path, const std::string& device,
                                        const std::string& modelType, const std::string& familyName) {
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    if (info->modelType != modelType)
        return Error{"checkpoint '" + path + "' holds a '" + info->modelType + "' model, not " + familyName};
    auto dev = resolveDevice(device);
    if (!dev) return Error{dev.error()};
    CheckpointHeader header;
    header.info = *info;
    header.device = *dev;
    header.classNames = datasetClassNames(info->dataset);
    return header;
}

Result<Unit> loadNetWeights(torch::nn::Module& net, const std::string& path, const CheckpointHeader& header) {
    net.to(header.device);
    auto loaded = loadCheckpointWeights(net, nullptr, path, &header.device);
    if (!loaded) return Error{loaded.error()};
    net.eval();
    return Unit{};
}

Result<Unit> stripOptimizerState(const std::string& path, const std::string& out) {
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    if (auto checked = checkOutputPath(out); !checked) return Error{checked.error()};
    const torch::Device cpu(torch::kCPU);
    const ModelFamily* family = findFamily(info->modelType);
    if (!family || !family->network)
        return Error{"checkpoint '" + path + "' holds a '" + info->modelType + "' model, which this version cannot copy"};
    std::shared_ptr<torch::nn::Module> net;
    try {
        auto built = family->network(info->configJson);
        if (!built) return configError(path, built.error());
        net = *built;
    } catch (const c10::Error& e) {
        return configError(path, torchErrorLine(e));
    }
    if (auto loaded = loadCheckpointWeights(*net, nullptr, path, &cpu); !loaded) return Error{loaded.error()};
    return saveCheckpoint(*net, nullptr, *info, out);
}

bool isScriptImport(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(sidecarPath(path), ec)) return true;
    // A JSON object of the same name that does not say it is Saccade's (the user's own notes)
    // does not make the model a checkpoint. Anything else there is a sidecar, damaged or not, and
    // the checkpoint loader says what is wrong with it.
    auto text = readFile(sidecarPath(path), 16u << 20);
    if (!text) return false;
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return false;
    const auto format = j.find("format");
    return format == j.end() || !format->is_string() || format->get<std::string>().rfind("saccade", 0) != 0;
}

Error configError(const std::string& path, const std::string& message) {
    return Error{"checkpoint '" + path + "': " + message};
}

}  // namespace saccade
