#include "train/trainer_opening.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <torch/cuda.h>

#include "common/device.h"

namespace saccade {

bool finiteNonNegative(std::initializer_list<double> figures) {
    return std::all_of(figures.begin(), figures.end(), [](double v) { return std::isfinite(v) && v >= 0; });
}

Result<ClassificationData> openClassificationData(const RunStart& start, const std::string& classifier) {
    auto dataset = openDataset(start.dataset, {"", start.seed});
    if (!dataset) return Error{dataset.error()};
    const auto& info = (*dataset)->info();
    if (info.classNames.size() < 2)
        return Error{"dataset '" + start.dataset + "' has no classes: " + classifier + " needs a classification dataset"};
    return ClassificationData{*dataset, info.channels, info.width, info.height, int(info.classNames.size())};
}

Result<TrainerOpening> openTrainer(const TrainCommonOptions& o, const std::string& dataset,
                                   const std::string& modelType, std::initializer_list<OptionCheck> checks) {
    const auto shard = checkTrainOptions(o);
    if (!shard) return Error{shard.error()};
    for (const auto& check : checks)
        if (!check.ok) return Error{check.error};
    auto device = resolveDevice(trainingDeviceSpec(o.device, o.distributed, int(torch::cuda::device_count())));
    if (!device) return Error{device.error()};
    auto start = runStart(o, dataset, modelType);
    if (!start) return Error{start.error()};
    TrainerOpening opening;
    opening.shard = *shard;
    opening.device = *device;
    opening.start = *start;
    return opening;
}

Result<Unit> loadStartingWeights(const TrainCommonOptions& o, torch::nn::Module& net, torch::optim::Optimizer& optimizer,
                                 const torch::Device& device, const InitFromCheck* initFrom) {
    if (!o.resume.empty()) return loadCheckpointWeights(net, &optimizer, o.resume, &device);
    if (!initFrom || initFrom->path.empty()) return Unit{};
    if (auto same = checkInitFrom(initFrom->path, initFrom->modelType, initFrom->configJson, initFrom->ourSettings,
                                  initFrom->hint);
        !same)
        return Error{same.error()};
    return loadCheckpointWeights(net, nullptr, initFrom->path, &device);
}

std::vector<std::int64_t> shardIndices(TrainingOrder& order, std::int64_t iteration, int batch,
                                       const BatchShard& shard, Passes passes) {
    std::vector<std::int64_t> idx(static_cast<std::size_t>(shard.size));
    for (int b = 0; b < shard.size; ++b) {
        const std::int64_t position = iteration * batch + shard.offset + b;
        idx[std::size_t(b)] = order.at(position) + (passes == Passes::Fresh ? position / order.size() * order.size() : 0);
    }
    return idx;
}

EvaluationBatch evaluationBatch(const Dataset& dataset, std::int64_t count, const torch::Device& device,
                                bool keepSamples) {
    std::vector<std::int64_t> idx(static_cast<std::size_t>(std::min(count, dataset.size(Split::Test))));
    std::iota(idx.begin(), idx.end(), 0);
    EvaluationBatch eval;
    eval.size = static_cast<std::int64_t>(idx.size());
    eval.batch = makeBatch(dataset, Split::Test, idx, device, keepSamples ? &eval.samples : nullptr);
    return eval;
}

ReinforceBaseline::ReinforceBaseline(const RunStart& start) {
    if (start.resumed) m_average.update(start.baseline);
    m_saved = m_average.value();
}

void ReinforceBaseline::wire(TrainLoopSetup& setup, bool hard) {
    setup.baseline = &m_saved;
    setup.afterStep = [this, hard](TrainProgress& p) {
        if (hard) m_saved = m_average.update(p.reward);
        p.baseline = m_average.value();
    };
}

}  // namespace saccade
