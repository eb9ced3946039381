#include "models/patch/patch_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "attention/reinforce.h"
#include "common/device.h"
#include "common/seed_mix.h"
#include "data/batch.h"
#include "models/patch/patch_classifier.h"
#include "io/checkpoint.h"
#include "train/train_loop.h"
#include "train/train_order.h"

namespace saccade {

namespace {

constexpr std::uint64_t kPatchDrawStream = 0x5e1, kPatchMixStream = 0x31c;

double accuracyUnder(PatchClassifier& net, const Batch& batch, const char* rule, std::uint64_t seed) {
    torch::NoGradGuard noGrad;
    Rng rng(seed);
    const auto out = net->forward(batch.images, *parseSelectionRule(rule), rng);
    return (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
}

}  // namespace

Result<TrainSummary> trainPatchModel(const PatchTrainOptions& o,
                                     const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto shard = checkTrainOptions(o);
    if (!shard) return Error{shard.error()};
    for (double v : {o.entropyBonus, o.dsrLambda, o.gumbelRate, o.finalLrFraction})
        if (!std::isfinite(v) || v < 0)
            return Error{"the entropy bonus, DSR lambda, gumbel rate and final lr fraction must be finite and >= 0"};
    auto device = resolveDevice(trainingDeviceSpec(o.device, o.distributed, int(torch::cuda::device_count())));
    if (!device) return Error{device.error()};

    auto start = runStart(o, o.dataset, "patch");
    if (!start) return Error{start.error()};
    PatchConfig config = o.model;
    if (start->resumed) {
        auto saved = patchConfigFromJson(start->configJson);
        if (!saved) return Error{"cannot resume from '" + o.resume + "': " + saved.error()};
        config = *saved;
    }
    const std::int64_t iteration = start->iteration, total = start->total;
    const std::uint64_t seed = start->seed;
    const std::string datasetName = start->dataset;
    MovingAverageBaseline baseline(0.9);
    if (start->resumed) baseline.update(start->baseline);
    auto dataset = openDataset(datasetName, {"", seed});
    if (!dataset) return Error{dataset.error()};
    const auto& dinfo = (*dataset)->info();
    config.inChannels = dinfo.channels;
    config.imageSize = dinfo.width;
    config.classes = static_cast<int>(dinfo.classNames.size());
    if (config.classes < 2) return Error{"dataset '" + datasetName + "' has no classes: the patch classifier needs a classification dataset"};
    if (auto valid = validatePatchConfig(config); !valid) return Error{valid.error()};

    torch::manual_seed(seed);  // weight initialisation
    PatchClassifier net(config);
    net->to(*device);  // before Adam, whose state must live beside the parameters
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    if (!o.resume.empty()) {
        auto loaded = loadCheckpointWeights(*net, &adam, o.resume, &*device);
        if (!loaded) return Error{loaded.error()};
    } else if (!o.initFrom.empty()) {
        auto ourMode = [&](const std::string& saved) -> Result<std::string> {
            auto c = patchConfigFromJson(saved);
            if (!c) return Error{c.error()};
            c.value().mode = config.mode;
            return patchConfigToJson(*c);
        };
        if (auto same = checkInitFrom(o.initFrom, "patch", patchConfigToJson(config), ourMode,
                                      "give the same --grid, --steps, --scorer and --variant");
            !same)
            return Error{same.error()};
        auto loaded = loadCheckpointWeights(*net, nullptr, o.initFrom, &*device);
        if (!loaded) return Error{loaded.error()};
    }

    TrainingOrder order((*dataset)->size(Split::Train), seed);
    std::vector<std::int64_t> evalIdx(static_cast<std::size_t>(std::min(o.evalImages, (*dataset)->size(Split::Test))));
    std::iota(evalIdx.begin(), evalIdx.end(), 0);
    const auto evalBatch = makeBatch(**dataset, Split::Test, evalIdx, *device);

    TrainLoopSetup setup = loopSetup(o, *net, adam, "patch", patchConfigToJson(config), datasetName, seed, iteration, total);
    double baselineValue = baseline.value();
    setup.baseline = &baselineValue;

    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        // This rank's slice of the global batch, and its own draws.
        const int rows = shard->size;
        std::vector<std::int64_t> idx(static_cast<std::size_t>(rows));
        for (int b = 0; b < rows; ++b) idx[b] = order.at(it * o.batch + shard->offset + b);
        const auto batch = makeBatch(**dataset, Split::Train, idx, *device);
        const auto drawSeed = rankSeed(seed, o.distributed.rank);
        Rng rng(mixSeed(drawSeed, kPatchDrawStream, static_cast<std::uint64_t>(it)));

        SelectionOptions rule;
        torch::Tensor mix;
        double tau = 0;
        if (config.mode == "hard") {
            rule.rule = SelectionRule::Sample;
            // The select variant skips the expectation mix: it would process every cell.
            if (config.variant == "dense")
                mix = Rng(mixSeed(drawSeed, kPatchMixStream, it)).uniform({rows}, *device) < 0.5;
        } else if (config.mode == "gumbel") {
            rule.rule = SelectionRule::Gumbel;
            tau = std::max(0.5, std::exp(-o.gumbelRate * double(it)));
            rule.temperature = tau;
        }
        const auto out = net->forward(batch.images, rule, rng, mix);
        const auto logpY = torch::log_softmax(out.logits, -1).gather(1, batch.labels.unsqueeze(1)).squeeze(1);
        const auto ce = -logpY.mean();
        auto loss = ce;
        if (config.mode == "hard") {
            // Reward log p(y | s, a); the samples that used the expectation made no choice.
            const auto reward = logpY.detach();
            p.reward = reward.mean().item<double>();
            const auto chose = mix.defined() ? mix.logical_not().to(reward.dtype()) : torch::ones_like(reward);
            const auto advantage = (reward - baseline.value()) * chose;
            const auto reinforce = -(advantage * out.logProb.sum(0)).mean();
            loss = loss + reinforce - o.entropyBonus * out.entropy.sum(0).mean();
            p.reinforce = reinforce.item<double>();
        } else if (config.mode == "soft" && o.dsrLambda > 0) {
            const auto coverage = out.probs.sum(0);  // [B, L]
            loss = loss + o.dsrLambda * (1 - coverage).pow(2).sum(-1).mean();
        }
        p.loss = loss.item<double>();
        if (!std::isfinite(p.loss)) return;  // the loop stops before the weights change
        adam.zero_grad();
        loss.backward();
        p.crossEntropy = ce.item<double>();
        p.entropy = out.entropy.mean().item<double>();
        p.temperature = tau;
        p.trainAccuracy = (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
    };
    setup.afterStep = [&](TrainProgress& p) {
        if (config.mode == "hard") baselineValue = baseline.update(p.reward);
        p.baseline = baseline.value();
    };
    auto evaluate = [&](TrainProgress& p) {
        p.evalSoft = accuracyUnder(net, evalBatch, "soft", 1);
        p.evalArgmax = accuracyUnder(net, evalBatch, "argmax", 1);
        p.evalSample = accuracyUnder(net, evalBatch, "sample", 1);
        return nlohmann::json{{"eval_images", static_cast<std::int64_t>(evalIdx.size())},
                              {"eval_soft", p.evalSoft}, {"eval_argmax", p.evalArgmax}, {"eval_sample", p.evalSample}};
    };
    return runTrainLoop(setup, step, evaluate, onProgress);
}

}  // namespace saccade
