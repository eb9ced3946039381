#include "train/ram_trainer.h"

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
#include "models/ram_network.h"
#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/train_order.h"

namespace saccade {

namespace {

constexpr std::uint64_t kDrawStream = 0x7a3;

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
    if (auto out = checkOutputPath(o.out); !out) return Error{out.error()};
    if (o.batch < 1 || o.replicas < 1 || o.lr <= 0) return Error{"batch, replicas and learning rate must be positive"};
    if (o.iterations <= 0 && o.minutes <= 0 && o.resume.empty())
        return Error{"give a time budget (minutes) or an iteration count"};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};

    RamConfig config = o.model;
    std::int64_t iteration = 0, total = o.iterations;
    std::uint64_t seed = o.seed;
    std::string datasetName = o.dataset;
    if (!o.resume.empty()) {
        auto info = readCheckpointInfo(o.resume);
        if (!info) return Error{info.error()};
        if (info->modelType != "ram") return Error{"cannot resume '" + o.resume + "': not a RAM checkpoint"};
        auto saved = ramConfigFromJson(info->configJson);
        if (!saved) return Error{"cannot resume from '" + o.resume + "': " + saved.error()};
        config = *saved;
        iteration = info->iteration;
        total = o.iterations > 0 ? o.iterations : info->totalIterations;
        seed = info->seed;
        datasetName = info->dataset;
    }
    auto dataset = openDataset(datasetName, {"", seed});
    if (!dataset) return Error{dataset.error()};
    const auto& dinfo = (*dataset)->info();
    if (dinfo.width != dinfo.height) return Error{"the RAM needs square images"};
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

    MetricsLog log(o.out, /*continueExisting=*/!o.resume.empty());
    const std::int64_t trainSize = (*dataset)->size(Split::Train);
    TrainingOrder order(trainSize, seed);
    std::vector<std::int64_t> evalIdx(static_cast<std::size_t>(std::min(o.evalImages, (*dataset)->size(Split::Test))));
    std::iota(evalIdx.begin(), evalIdx.end(), 0);
    const auto evalBatch = makeBatch(**dataset, Split::Test, evalIdx, *device);

    CheckpointInfo info;
    info.modelType = "ram";
    info.configJson = ramConfigToJson(config);
    info.dataset = datasetName;
    info.seed = seed;
    info.gitRevision = buildGitRevision();
    info.command = o.command;

    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    const std::int64_t firstIteration = iteration;
    IterationBudget budget(total, o.minutes, firstIteration);
    TrainProgress p;
    nlohmann::json last = nlohmann::json::object();
    bool cancelled = false;
    try {
        while (total == 0 || iteration < total) {
            total = budget.update(iteration, elapsed());
            const double fraction = total > 0 ? double(iteration) / double(total) : 0.0;
            const double lr = o.lr * (o.finalLrFraction + (1 - o.finalLrFraction) * 0.5 * (1 + std::cos(M_PI * fraction)));
            for (auto& group : adam.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);

            std::vector<std::int64_t> idx(static_cast<std::size_t>(o.batch));
            for (int b = 0; b < o.batch; ++b) {
                const std::int64_t position = iteration * o.batch + b;
                idx[size_t(b)] = order.at(position) + (o.freshCanvases ? position / trainSize * trainSize : 0);
            }
            const auto batch = makeBatch(**dataset, Split::Train, idx, *device);
            const auto images = o.replicas > 1 ? batch.images.repeat({o.replicas, 1, 1, 1}) : batch.images;
            const auto labels = o.replicas > 1 ? batch.labels.repeat({o.replicas}) : batch.labels;
            Rng rng(mixSeed(seed, kDrawStream, static_cast<std::uint64_t>(iteration)));

            const auto out = net->forward(images, RamRule::Sample, rng);
            const auto terms = ramHybridLoss(out, labels);
            const auto& loss = terms.total;
            adam.zero_grad();
            loss.backward();
            adam.step();
            ++iteration;

            p = TrainProgress{};
            p.iteration = iteration;
            p.total = total;
            p.elapsedSeconds = elapsed();
            p.etaSeconds = total > 0 ? p.elapsedSeconds / double(iteration - firstIteration) * double(total - iteration) : 0;
            p.loss = loss.item<double>();
            p.crossEntropy = terms.crossEntropy.item<double>();
            p.reinforce = terms.reinforce.item<double>();
            p.reward = terms.reward.mean().item<double>();
            p.baseline = out.baselines.mean().item<double>();
            p.lr = lr;
            p.trainAccuracy = p.reward;
            const bool finished = total > 0 && iteration >= total;
            if (iteration % o.evalEvery == 0 || finished) {
                net->eval();
                p.evaluated = true;
                p.evalArgmax = accuracyUnder(net, evalBatch, RamRule::Mean, 1);
                p.evalSample = accuracyUnder(net, evalBatch, RamRule::Sample, 1);
                p.evalSoft = accuracyUnder(net, evalBatch, RamRule::Random, 1);
                net->train();
                last = {{"iteration", iteration}, {"images", iteration * o.batch}, {"seconds", p.elapsedSeconds},
                        {"loss", p.loss}, {"cross_entropy", p.crossEntropy}, {"reinforce", p.reinforce},
                        {"reward", p.reward}, {"baseline", p.baseline}, {"lr", lr},
                        {"train_batch_accuracy", p.trainAccuracy},
                        {"eval_images", static_cast<std::int64_t>(evalIdx.size())},
                        {"eval_mean", p.evalArgmax}, {"eval_sample", p.evalSample}, {"eval_random", p.evalSoft}};
                if (auto logged = log.append(last); !logged) return Error{logged.error()};
                info.iteration = iteration;
                info.totalIterations = total;
                info.metricsJson = last.dump();
                if (auto saved = saveCheckpoint(*net, &adam, info, o.out); !saved) return Error{saved.error()};
            }
            if (onProgress && !onProgress(p)) {
                cancelled = true;
                break;
            }
        }
    } catch (const c10::Error& e) {
        return Error{std::string("training failed: ") + e.what_without_backtrace()};
    }
    info.iteration = iteration;
    info.totalIterations = total;
    if (!last.empty()) info.metricsJson = last.dump();
    if (auto saved = saveCheckpoint(*net, &adam, info, o.out); !saved) return Error{saved.error()};
    TrainSummary s;
    s.iterations = iteration;
    s.cancelled = cancelled;
    s.seconds = elapsed();
    s.imagesPerSecond = double(iteration - firstIteration) * o.batch / std::max(1e-9, s.seconds);
    s.checkpoint = o.out;
    s.metricsJson = info.metricsJson;
    return s;
}

}  // namespace saccade
