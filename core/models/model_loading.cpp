#include "models/model_loading.h"

#include <torch/torch.h>

#include "common/device.h"
#include "models/caption_network.h"
#include "models/patch_classifier.h"
#include "models/ram_network.h"
#include "models/seq_net.h"
#include "models/vit_network.h"
#include "models/model_input.h"

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
    std::shared_ptr<torch::nn::Module> net;
    try {
        if (info->modelType == "patch") {
            auto c = patchConfigFromJson(info->configJson);
            if (!c) return configError(path, c.error());
            net = PatchClassifier(*c).ptr();
        } else if (info->modelType == "ram") {
            auto c = ramConfigFromJson(info->configJson);
            if (!c) return configError(path, c.error());
            net = RamNetwork(*c).ptr();
        } else if (info->modelType == "caption") {
            auto c = captionConfigFromJson(info->configJson);
            if (!c) return configError(path, c.error());
            net = CaptionNetwork(*c).ptr();
        } else if (info->modelType == "vit") {
            auto c = vitConfigFromJson(info->configJson);
            if (!c) return configError(path, c.error());
            net = VitNetwork(*c).ptr();
        } else if (info->modelType == "seq") {
            auto c = seqConfigFromJson(info->configJson);
            if (!c) return configError(path, c.error());
            net = makeSeqNet(*c);
        } else {
            return Error{"checkpoint '" + path + "' holds a '" + info->modelType + "' model, which this version cannot copy"};
        }
    } catch (const c10::Error& e) {
        return configError(path, e.what_without_backtrace());
    }
    if (auto loaded = loadCheckpointWeights(*net, nullptr, path, &cpu); !loaded) return Error{loaded.error()};
    return saveCheckpoint(*net, nullptr, *info, out);
}

Error configError(const std::string& path, const std::string& message) {
    return Error{"checkpoint '" + path + "': " + message};
}

}  // namespace saccade
