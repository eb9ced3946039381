#include "train/patch_trainer.h"

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
#include "models/patch_classifier.h"
#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/train_order.h"

namespace saccade {

namespace {

constexpr std::uint64_t kDrawStream = 0x5e1, kMixStream = 0x31c;

double accuracyUnder(PatchClassifier& net, const Batch& batch, const char* rule, std::uint64_t seed) {
    torch::NoGradGuard noGrad;
    Rng rng(seed);
    const auto out = net->forward(batch.images, *parseSelectionRule(rule), rng);
    return (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
}

// An --init-from checkpoint must be a patch model with the same architecture; only the training
// mode may differ.
Result<Unit> checkInitArchitecture(const std::string& path, PatchConfig config) {
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    if (info->modelType != "patch")
        return Error{"cannot start from '" + path + "': it holds a " + info->modelType + " model, not a patch model"};
    auto saved = patchConfigFromJson(info->configJson);
    if (!saved) return Error{"cannot start from '" + path + "': " + saved.error()};
    PatchConfig same = *saved;
    same.mode = config.mode;
    if (patchConfigToJson(same) != patchConfigToJson(config))
        return Error{"cannot start from '" + path + "': its architecture differs (" + info->configJson +
                     "); give the same --grid, --steps, --scorer and --variant"};
    return Unit{};
}

}  // namespace

Result<TrainSummary> trainPatchModel(const PatchTrainOptions& o,
                                     const std::function<bool(const TrainProgress&)>& onProgress) {
    if (auto out = checkOutputPath(o.out); !out) return Error{out.error()};
    if (o.batch < 1 || o.lr <= 0) return Error{"batch and learning rate must be positive"};
    if (o.iterations <= 0 && o.minutes <= 0 && o.resume.empty())
        return Error{"give a time budget (minutes) or an iteration count"};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};

    PatchConfig config = o.model;
    std::int64_t iteration = 0, total = o.iterations;
    std::uint64_t seed = o.seed;
    MovingAverageBaseline baseline(0.9);
    std::string datasetName = o.dataset;
    if (!o.resume.empty()) {
        auto info = readCheckpointInfo(o.resume);
        if (!info) return Error{info.error()};
        auto saved = patchConfigFromJson(info->configJson);
        if (!saved) return Error{"cannot resume from '" + o.resume + "': " + saved.error()};
        config = *saved;
        iteration = info->iteration;
        total = o.iterations > 0 ? o.iterations : info->totalIterations;
        seed = info->seed;
        datasetName = info->dataset;
        baseline.update(info->baseline);
    }
    auto dataset = openDataset(datasetName, {"", seed});
    if (!dataset) return Error{dataset.error()};
    const auto& dinfo = (*dataset)->info();
    config.inChannels = dinfo.channels;
    config.imageSize = dinfo.width;
    config.classes = static_cast<int>(dinfo.classNames.size());
    if (auto valid = validatePatchConfig(config); !valid) return Error{valid.error()};

    torch::manual_seed(seed);  // weight initialisation
    PatchClassifier net(config);
    net->to(*device);  // before Adam, whose state must live beside the parameters
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    if (!o.resume.empty()) {
        auto loaded = loadCheckpointWeights(*net, &adam, o.resume, &*device);
        if (!loaded) return Error{loaded.error()};
    } else if (!o.initFrom.empty()) {
        if (auto same = checkInitArchitecture(o.initFrom, config); !same) return Error{same.error()};
        auto loaded = loadCheckpointWeights(*net, nullptr, o.initFrom, &*device);
        if (!loaded) return Error{loaded.error()};
    }

    MetricsLog log(o.out, /*continueExisting=*/!o.resume.empty());
    TrainingOrder order((*dataset)->size(Split::Train), seed);
    std::vector<std::int64_t> evalIdx(static_cast<std::size_t>(std::min(o.evalImages, (*dataset)->size(Split::Test))));
    std::iota(evalIdx.begin(), evalIdx.end(), 0);
    const auto evalBatch = makeBatch(**dataset, Split::Test, evalIdx, *device);

    CheckpointInfo info;
    info.modelType = "patch";
    info.configJson = patchConfigToJson(config);
    info.dataset = datasetName;
    info.seed = seed;
    info.gitRevision = buildGitRevision();
    info.command = o.command;

    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const std::int64_t firstIteration = iteration;
    IterationBudget budget(total, o.minutes, firstIteration);
    TrainProgress p;
    nlohmann::json last = nlohmann::json::object();
    bool cancelled = false;
    try {
        while (total == 0 || iteration < total) {
            // Time budget: the iteration count is fixed once the warm-up has been timed, so the
            // schedule (and a rerun with --iterations) is reproducible.
            total = budget.update(iteration, elapsed());
            const double fraction = total > 0 ? double(iteration) / double(total) : 0.0;
            const double lr = o.lr * (o.finalLrFraction + (1 - o.finalLrFraction) * 0.5 * (1 + std::cos(M_PI * fraction)));
            for (auto& group : adam.param_groups())
                static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);

            std::vector<std::int64_t> idx(static_cast<std::size_t>(o.batch));
            for (int b = 0; b < o.batch; ++b) idx[b] = order.at(iteration * o.batch + b);
            const auto batch = makeBatch(**dataset, Split::Train, idx, *device);
            Rng rng(mixSeed(seed, kDrawStream, static_cast<std::uint64_t>(iteration)));

            SelectionOptions rule;
            torch::Tensor mix;
            double tau = 0;
            if (config.mode == "hard") {
                rule.rule = SelectionRule::Sample;
                // The select variant skips the expectation mix: it would process every cell.
                if (config.variant == "dense")
                    mix = Rng(mixSeed(seed, kMixStream, iteration)).uniform({o.batch}, *device) < 0.5;
            } else if (config.mode == "gumbel") {
                rule.rule = SelectionRule::Gumbel;
                tau = std::max(0.5, std::exp(-o.gumbelRate * double(iteration)));
                rule.temperature = tau;
            }
            const auto out = net->forward(batch.images, rule, rng, mix);
            const auto logpY = torch::log_softmax(out.logits, -1).gather(1, batch.labels.unsqueeze(1)).squeeze(1);
            const auto ce = -logpY.mean();
            auto loss = ce;
            double reinforceValue = 0, rewardValue = 0;
            if (config.mode == "hard") {
                // Reward log p(y | s, a); the samples that used the expectation made no choice.
                const auto reward = logpY.detach();
                rewardValue = reward.mean().item<double>();
                const auto chose = mix.defined() ? mix.logical_not().to(reward.dtype())
                                                 : torch::ones_like(reward);
                const auto advantage = (reward - baseline.value()) * chose;
                const auto reinforce = -(advantage * out.logProb.sum(0)).mean();
                loss = loss + reinforce - o.entropyBonus * out.entropy.sum(0).mean();
                reinforceValue = reinforce.item<double>();
                baseline.update(rewardValue);
            } else if (config.mode == "soft" && o.dsrLambda > 0) {
                const auto coverage = out.probs.sum(0);  // [B, L]
                loss = loss + o.dsrLambda * (1 - coverage).pow(2).sum(-1).mean();
            }
            adam.zero_grad();
            loss.backward();
            adam.step();
            ++iteration;

            p = TrainProgress{};
            p.iteration = iteration;
            p.total = total;
            p.elapsedSeconds = elapsed();
            const auto done = iteration - firstIteration;
            p.etaSeconds = total > 0 ? p.elapsedSeconds / done * double(total - iteration) : 0;
            p.loss = loss.item<double>();
            p.crossEntropy = ce.item<double>();
            p.reinforce = reinforceValue;
            p.reward = rewardValue;
            p.baseline = baseline.value();
            p.entropy = out.entropy.mean().item<double>();
            p.temperature = tau;
            p.lr = lr;
            p.trainAccuracy = (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
            const bool finished = total > 0 && iteration >= total;
            if (iteration % o.evalEvery == 0 || finished) {
                net->eval();
                p.evaluated = true;
                p.evalSoft = accuracyUnder(net, evalBatch, "soft", 1);
                p.evalArgmax = accuracyUnder(net, evalBatch, "argmax", 1);
                p.evalSample = accuracyUnder(net, evalBatch, "sample", 1);
                net->train();
                last = {{"iteration", iteration}, {"images", iteration * o.batch},
                        {"seconds", p.elapsedSeconds}, {"loss", p.loss}, {"cross_entropy", p.crossEntropy},
                        {"reinforce", p.reinforce}, {"reward", p.reward}, {"baseline", p.baseline},
                        {"entropy", p.entropy}, {"temperature", tau}, {"lr", lr},
                        {"train_batch_accuracy", p.trainAccuracy},
                        {"eval_images", static_cast<std::int64_t>(evalIdx.size())},
                        {"eval_soft", p.evalSoft}, {"eval_argmax", p.evalArgmax}, {"eval_sample", p.evalSample}};
                if (auto logged = log.append(last); !logged) return Error{logged.error()};
                info.iteration = iteration;
                info.totalIterations = total;
                info.baseline = baseline.value();
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
    info.baseline = baseline.value();
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
