#include "models/ram/ram_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/seed_mix.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "models/ram/ram_network.h"
#include "io/checkpoint.h"
#include "train/train_loop.h"
#include "train/train_order.h"

namespace saccade {

namespace {

constexpr std::uint64_t kRamDrawStream = 0x7a3;

double accuracyUnder(RamNetwork& net, const Batch& batch, RamRule rule, std::uint64_t seed) {
    torch::NoGradGuard noGrad;
    Rng rng(seed);
    const auto out = net->forward(batch.images, rule, rng);
    return (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
}

}  // namespace

RamConfig zeroGlimpseDefaults() {
    RamConfig c;
    c.glimpseSize = 0;
    c.scales = 0;
    return c;
}

Result<TrainSummary> trainRamModel(const RamTrainOptions& o,
                                   const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto shard = checkTrainOptions(o);
    if (!shard) return Error{shard.error()};
    if (o.replicas < 1) return Error{"replicas must be at least 1"};
    if (!std::isfinite(o.finalLrFraction) || o.finalLrFraction < 0) return Error{"the final lr fraction must be finite and >= 0"};
    auto device = resolveDevice(trainingDeviceSpec(o.device, o.distributed, int(torch::cuda::device_count())));
    if (!device) return Error{device.error()};

    auto start = runStart(o, o.dataset, "ram");
    if (!start) return Error{start.error()};
    RamConfig config = o.model;
    if (start->resumed) {
        auto saved = ramConfigFromJson(start->configJson);
        if (!saved) return Error{"cannot resume from '" + o.resume + "': " + saved.error()};
        config = *saved;
    }
    const std::int64_t iteration = start->iteration, total = start->total;
    const std::uint64_t seed = start->seed;
    const std::string datasetName = start->dataset;
    auto dataset = openDataset(datasetName, {"", seed});
    if (!dataset) return Error{dataset.error()};
    const auto& dinfo = (*dataset)->info();
    if (dinfo.width != dinfo.height) return Error{"the RAM needs square images"};
    if (dinfo.classNames.size() < 2) return Error{"dataset '" + datasetName + "' has no classes: the RAM needs a classification dataset"};
    const auto defaults = defaultRamConfig(dinfo.width, dinfo.channels, int(dinfo.classNames.size()));
    if (config.glimpseSize <= 0) config.glimpseSize = defaults.glimpseSize;
    if (config.scales <= 0) config.scales = defaults.scales;
    config.inChannels = dinfo.channels;
    config.imageSize = dinfo.width;
    config.classes = int(dinfo.classNames.size());
    if (auto valid = validateRamConfig(config); !valid) return Error{valid.error()};

    torch::manual_seed(seed);
    RamNetwork net(config);
    net->to(*device);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    if (!o.resume.empty()) {
        if (auto loaded = loadCheckpointWeights(*net, &adam, o.resume, &*device); !loaded) return Error{loaded.error()};
    }

    const std::int64_t trainSize = (*dataset)->size(Split::Train);
    TrainingOrder order(trainSize, seed);
    std::vector<std::int64_t> evalIdx(static_cast<std::size_t>(std::min(o.evalImages, (*dataset)->size(Split::Test))));
    std::iota(evalIdx.begin(), evalIdx.end(), 0);
    const auto evalBatch = makeBatch(**dataset, Split::Test, evalIdx, *device);

    TrainLoopSetup setup = loopSetup(o, *net, adam, "ram", ramConfigToJson(config), datasetName, seed, iteration, total);

    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        // This rank's slice of the global batch, and its own draws.
        std::vector<std::int64_t> idx(static_cast<std::size_t>(shard->size));
        for (int b = 0; b < shard->size; ++b) {
            const std::int64_t position = it * o.batch + shard->offset + b;
            idx[size_t(b)] = order.at(position) + (o.freshCanvases ? position / trainSize * trainSize : 0);
        }
        const auto batch = makeBatch(**dataset, Split::Train, idx, *device);
        const auto images = o.replicas > 1 ? batch.images.repeat({o.replicas, 1, 1, 1}) : batch.images;
        const auto labels = o.replicas > 1 ? batch.labels.repeat({o.replicas}) : batch.labels;
        Rng rng(mixSeed(rankSeed(seed, o.distributed.rank), kRamDrawStream, static_cast<std::uint64_t>(it)));

        const auto out = net->forward(images, RamRule::Sample, rng);
        const auto terms = ramHybridLoss(out, labels);
        const auto& loss = terms.total;
        p.loss = loss.item<double>();
        if (!std::isfinite(p.loss)) return;  // the loop stops before the weights change
        adam.zero_grad();
        loss.backward();
        p.crossEntropy = terms.crossEntropy.item<double>();
        p.reinforce = terms.reinforce.item<double>();
        p.reward = terms.reward.mean().item<double>();
        p.baseline = out.baselines.mean().item<double>();
        p.trainAccuracy = p.reward;
    };
    auto evaluate = [&](TrainProgress& p) {
        p.evalArgmax = accuracyUnder(net, evalBatch, RamRule::Mean, 1);
        p.evalSample = accuracyUnder(net, evalBatch, RamRule::Sample, 1);
        p.evalSoft = accuracyUnder(net, evalBatch, RamRule::Random, 1);
        return nlohmann::json{{"eval_images", static_cast<std::int64_t>(evalIdx.size())},
                              {"eval_mean", p.evalArgmax}, {"eval_sample", p.evalSample}, {"eval_random", p.evalSoft}};
    };
    return runTrainLoop(setup, step, evaluate, onProgress);
}

}  // namespace saccade
