#include "models/vit/vit_trainer.h"

#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/seed_mix.h"
#include "data/augment.h"
#include "data/batch.h"
#include "io/checkpoint.h"
#include "models/vit/vit_network.h"
#include "train/train_loop.h"
#include "train/train_order.h"

namespace saccade {

namespace {
constexpr std::uint64_t kShiftStream = 0x5b1f7;  // the training images' shifts
}  // namespace

Result<TrainSummary> trainVitModel(const VitTrainOptions& o, const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto shard = checkTrainOptions(o);
    if (!shard) return Error{shard.error()};
    for (double v : {o.weightDecay, o.labelSmoothing, o.finalLrFraction})
        if (!std::isfinite(v) || v < 0) return Error{"the weight decay, label smoothing and final lr fraction must be finite and >= 0"};
    if (o.labelSmoothing >= 1) return Error{"label smoothing must be below 1"};
    auto device = resolveDevice(trainingDeviceSpec(o.device, o.distributed, int(torch::cuda::device_count())));
    if (!device) return Error{device.error()};

    auto start = runStart(o, o.dataset, "vit");
    if (!start) return Error{start.error()};
    VitConfig config = o.model;
    if (start->resumed) {
        auto saved = vitConfigFromJson(start->configJson);
        if (!saved) return Error{"cannot resume from '" + o.resume + "': " + saved.error()};
        config = *saved;
    }
    const std::uint64_t seed = start->seed;
    auto dataset = openDataset(start->dataset, {"", seed});
    if (!dataset) return Error{dataset.error()};
    const auto& dinfo = (*dataset)->info();
    config.inChannels = dinfo.channels;
    config.imageSize = dinfo.width;
    config.classes = static_cast<int>(dinfo.classNames.size());
    if (config.classes < 2) return Error{"dataset '" + start->dataset + "' has no classes: the vision transformer classifies"};
    if (auto valid = validateVitConfig(config); !valid) return Error{valid.error()};

    torch::manual_seed(seed);  // weight initialisation
    VitNetwork net(config);
    net->to(*device);
    torch::optim::AdamW adamw(net->parameters(), torch::optim::AdamWOptions(o.lr).weight_decay(o.weightDecay));
    if (!o.resume.empty()) {
        if (auto loaded = loadCheckpointWeights(*net, &adamw, o.resume, &*device); !loaded) return Error{loaded.error()};
    }

    TrainingOrder order((*dataset)->size(Split::Train), seed);
    std::vector<std::int64_t> evalIdx(static_cast<std::size_t>(std::min(o.evalImages, (*dataset)->size(Split::Test))));
    std::iota(evalIdx.begin(), evalIdx.end(), 0);
    const auto evalBatch = makeBatch(**dataset, Split::Test, evalIdx, *device);
    if (o.shift) {  // a shift needs objects with room around them: said before training, not found after
        std::vector<std::int64_t> first(static_cast<std::size_t>(std::min<std::int64_t>(256, (*dataset)->size(Split::Train))));
        std::iota(first.begin(), first.end(), 0);
        const auto probe = makeBatch(**dataset, Split::Train, first, torch::kCPU);
        if (movableBoxes(probe.boxes, probe.images.size(2), probe.images.size(3)) == 0)
            return Error{"--shift moves each object within its canvas, but the objects of dataset '" + start->dataset +
                         "' fill it (or have no box): there is no room to move them"};
    }

    TrainLoopSetup setup =
        loopSetup(o, *net, adamw, "vit", vitConfigToJson(config), start->dataset, seed, start->iteration, start->total);
    setup.clipGradNorm = 1.0;
    const auto classes = double(config.classes);
    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        std::vector<std::int64_t> idx(static_cast<std::size_t>(shard->size));
        for (int b = 0; b < shard->size; ++b) idx[size_t(b)] = order.at(it * o.batch + shard->offset + b);
        const auto batch = makeBatch(**dataset, Split::Train, idx, *device);
        const auto images = o.shift ? shiftKeepingBoxes(batch.images, batch.boxes,
                                                        mixSeed(seed, kShiftStream, std::uint64_t(it * o.batch + shard->offset)))
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
        const auto logits = net->forward(evalBatch.images).logits;
        p.evalSoft = p.evalArgmax = p.evalSample =
            (logits.argmax(-1) == evalBatch.labels).to(torch::kDouble).mean().item<double>();
        return nlohmann::json{{"eval_images", static_cast<std::int64_t>(evalIdx.size())}, {"eval_accuracy", p.evalSoft}};
    };
    return runTrainLoop(setup, step, evaluate, onProgress);
}

}  // namespace saccade
