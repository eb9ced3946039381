#include "models/model_loading.h"

#include "common/device.h"
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

Error configError(const std::string& path, const std::string& message) {
    return Error{"checkpoint '" + path + "': " + message};
}

}  // namespace saccade
