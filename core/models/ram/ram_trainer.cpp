#include "models/ram/ram_trainer.h"

#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/seed_mix.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "models/ram/ram_network.h"
#include "train/train_loop.h"
#include "train/train_order.h"
#include "train/trainer_opening.h"

namespace saccade {

namespace {

constexpr std::uint64_t kRamDrawStream = 0x7a3;

double accuracyUnder(RamNetwork& net, const Batch& batch, RamRule rule, std::uint64_t seed) {
    torch::NoGradGuard noGrad;
    Rng rng(seed);
    const auto out = net->forward(batch.images, rule, rng);
    return (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
}

/// The dataset's image size, channels and classes, and its default glimpse for what is left 0.
Result<Unit> fitRamConfig(RamConfig& config, const ClassificationData& data) {
    if (data.width != data.height) return Error{"the RAM needs square images"};
    const auto defaults = defaultRamConfig(data.width, data.channels, data.classes);
    if (config.glimpseSize <= 0) config.glimpseSize = defaults.glimpseSize;
    if (config.scales <= 0) config.scales = defaults.scales;
    config.inChannels = data.channels;
    config.imageSize = data.width;
    config.classes = data.classes;
    if (auto valid = validateRamConfig(config); !valid) return Error{valid.error()};
    return Unit{};
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
    const auto opening = openTrainer(o, o.dataset, "ram",
                                     {{o.replicas >= 1, "replicas must be at least 1"},
                                      {finiteNonNegative({o.finalLrFraction}), "the final lr fraction must be finite and >= 0"}});
    if (!opening) return Error{opening.error()};
    const auto& start = opening->start;
    const auto& device = opening->device;
    const auto& shard = opening->shard;
    auto loaded = startingConfig(o, start, o.model, ramConfigFromJson);
    if (!loaded) return Error{loaded.error()};
    RamConfig config = *loaded;
    const std::uint64_t seed = start.seed;
    auto data = openClassificationData(start, "the RAM");
    if (!data) return Error{data.error()};
    if (auto fitted = fitRamConfig(config, *data); !fitted) return Error{fitted.error()};
    const Dataset& dataset = *data->dataset;

    torch::manual_seed(seed);
    RamNetwork net(config);
    net->to(device);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    if (auto weights = loadStartingWeights(o, *net, adam, device); !weights) return Error{weights.error()};

    TrainingOrder order(dataset.size(Split::Train), seed);
    const auto eval = evaluationBatch(dataset, o.evalImages, device);

    TrainLoopSetup setup = loopSetup(o, *net, adam, "ram", ramConfigToJson(config), start.dataset, seed, start);

    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        // This rank's slice of the global batch, and its own draws.
        const auto idx = shardIndices(order, it, o.batch, shard, o.freshCanvases ? Passes::Fresh : Passes::Repeat);
        const auto batch = makeBatch(dataset, Split::Train, idx, device);
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
        p.evalArgmax = accuracyUnder(net, eval.batch, RamRule::Mean, 1);
        p.evalSample = accuracyUnder(net, eval.batch, RamRule::Sample, 1);
        p.evalSoft = accuracyUnder(net, eval.batch, RamRule::Random, 1);
        return nlohmann::json{{"eval_images", eval.size},
                              {"eval_mean", p.evalArgmax}, {"eval_sample", p.evalSample}, {"eval_random", p.evalSoft}};
    };
    return runTrainLoop(setup, step, evaluate, onProgress);
}

}  // namespace saccade
