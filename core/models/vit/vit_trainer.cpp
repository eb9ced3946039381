#include "models/vit/vit_trainer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/seed_mix.h"
#include "data/augment.h"
#include "data/batch.h"
#include "models/vit/vit_network.h"
#include "train/train_loop.h"
#include "train/train_order.h"
#include "train/trainer_opening.h"

namespace saccade {

namespace {
constexpr std::uint64_t kShiftStream = 0x5b1f7;  // the training images' shifts

/// --shift needs objects with room around them: said before training, not found after.
Result<Unit> checkShiftRoom(const Dataset& dataset, const std::string& datasetName) {
    std::vector<std::int64_t> first(static_cast<std::size_t>(std::min<std::int64_t>(256, dataset.size(Split::Train))));
    std::iota(first.begin(), first.end(), 0);
    const auto probe = makeBatch(dataset, Split::Train, first, torch::kCPU);
    if (movableBoxes(probe.boxes, probe.images.size(2), probe.images.size(3)) == 0)
        return Error{"--shift moves each object within its canvas, but the objects of dataset '" + datasetName +
                     "' fill it (or have no box): there is no room to move them"};
    return Unit{};
}
}  // namespace

Result<TrainSummary> trainVitModel(const VitTrainOptions& o, const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto opening = openTrainer(
        o, o.dataset, "vit",
        {{finiteNonNegative({o.weightDecay, o.labelSmoothing, o.finalLrFraction}),
          "the weight decay, label smoothing and final lr fraction must be finite and >= 0"},
         {!(o.labelSmoothing >= 1), "label smoothing must be below 1"}});
    if (!opening) return Error{opening.error()};
    const auto& start = opening->start;
    const auto& device = opening->device;
    const auto& shard = opening->shard;
    auto loaded = startingConfig(o, start, o.model, vitConfigFromJson);
    if (!loaded) return Error{loaded.error()};
    VitConfig config = *loaded;
    const std::uint64_t seed = start.seed;
    auto data = openClassificationData(start, "the vision transformer");
    if (!data) return Error{data.error()};
    const Dataset& dataset = *data->dataset;
    config.inChannels = data->channels;
    config.imageSize = data->width;
    config.classes = data->classes;
    if (auto valid = validateVitConfig(config); !valid) return Error{valid.error()};

    torch::manual_seed(seed);  // weight initialisation
    VitNetwork net(config);
    net->to(device);
    torch::optim::AdamW adamw(net->parameters(), torch::optim::AdamWOptions(o.lr).weight_decay(o.weightDecay));
    if (auto weights = loadStartingWeights(o, *net, adamw, device); !weights) return Error{weights.error()};

    TrainingOrder order(dataset.size(Split::Train), seed);
    const auto eval = evaluationBatch(dataset, o.evalImages, device);
    if (o.shift)
        if (auto room = checkShiftRoom(dataset, start.dataset); !room) return Error{room.error()};

    TrainLoopSetup setup =
        loopSetup(o, *net, adamw, "vit", vitConfigToJson(config), start.dataset, seed, start);
    setup.clipGradNorm = 1.0;
    const auto classes = double(config.classes);
    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        const auto batch = makeBatch(dataset, Split::Train, shardIndices(order, it, o.batch, shard), device);
        const auto images = o.shift ? shiftKeepingBoxes(batch.images, batch.boxes,
                                                        mixSeed(seed, kShiftStream, std::uint64_t(it * o.batch + shard.offset)))
                                    : batch.images;
        const auto logits = net->forward(images).logits;
        const auto logp = torch::log_softmax(logits, -1);
        const auto ce = -logp.gather(1, batch.labels.unsqueeze(1)).squeeze(1).mean();
        // Label smoothing: (1 - e) of the target plus e spread evenly over the classes.
        const auto loss = (1 - o.labelSmoothing) * ce - o.labelSmoothing * logp.sum(-1).mean() / classes;
        p.loss = loss.item<double>();
        if (!std::isfinite(p.loss)) return;
        adamw.zero_grad();
        loss.backward();
        p.crossEntropy = ce.item<double>();
        p.trainAccuracy = (logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
    };
    auto evaluate = [&](TrainProgress& p) {
        torch::NoGradGuard noGrad;
        const auto logits = net->forward(eval.batch.images).logits;
        p.evalSoft = p.evalArgmax = p.evalSample =
            (logits.argmax(-1) == eval.batch.labels).to(torch::kDouble).mean().item<double>();
        return nlohmann::json{{"eval_images", eval.size}, {"eval_accuracy", p.evalSoft}};
    };
    return runTrainLoop(setup, step, evaluate, onProgress);
}

}  // namespace saccade
