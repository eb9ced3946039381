#include "models/patch/patch_trainer.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/seed_mix.h"
#include "data/batch.h"
#include "models/patch/patch_classifier.h"
#include "train/attention_step.h"
#include "train/train_loop.h"
#include "train/train_order.h"
#include "train/trainer_opening.h"

namespace saccade {

namespace {

constexpr std::uint64_t kPatchDrawStream = 0x5e1, kPatchMixStream = 0x31c;

double accuracyUnder(PatchClassifier& net, const Batch& batch, const char* rule, std::uint64_t seed) {
    torch::NoGradGuard noGrad;
    Rng rng(seed);
    const auto out = net->forward(batch.images, *parseSelectionRule(rule), rng);
    return (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
}

/// One optimisation step of the patch classifier: soft, hard (REINFORCE) or gumbel.
struct PatchStep {
    const PatchTrainOptions& o;
    const PatchConfig& config;
    PatchClassifier& net;
    const Dataset& dataset;
    TrainingOrder& order;
    StepParts parts;

    void operator()(std::int64_t it, TrainProgress& p) const {
        // This rank's slice of the global batch, and its own draws.
        const auto batch = makeBatch(dataset, Split::Train, shardIndices(order, it, o.batch, parts.shard), parts.device);
        const auto drawSeed = rankSeed(parts.seed, o.distributed.rank);
        Rng rng(mixSeed(drawSeed, kPatchDrawStream, static_cast<std::uint64_t>(it)));
        // The select variant skips the expectation mix: it would process every cell.
        const std::optional<double> mixShare = config.variant == "dense" ? std::optional<double>(0.5) : std::nullopt;
        const auto step = stepRule(config.mode, it, parts.shard.size, parts.device, mixShare,
                                   mixSeed(drawSeed, kPatchMixStream, it), o.gumbelRate);
        const auto out = net->forward(batch.images, step.rule, rng, step.mix);
        const auto logpY = torch::log_softmax(out.logits, -1).gather(1, batch.labels.unsqueeze(1)).squeeze(1);
        const auto ce = -logpY.mean();
        auto loss = ce;
        if (config.mode == TrainingMode::Hard) {
            // Reward log p(y | s, a); the samples that used the expectation made no choice.
            const auto reinforce = reinforceTerm(logpY.detach(), out.logProb.sum(0), step.mix, parts.baseline, p);
            loss = loss + reinforce - o.entropyBonus * out.entropy.sum(0).mean();
        } else if (config.mode == TrainingMode::Soft && o.dsrLambda > 0) {
            const auto coverage = out.probs.sum(0);  // [B, L]
            loss = loss + o.dsrLambda * (1 - coverage).pow(2).sum(-1).mean();
        }
        if (!backwardStep(loss, parts.optimizer, p)) return;  // the loop stops before the weights change
        p.crossEntropy = ce.item<double>();
        p.entropy = out.entropy.mean().item<double>();
        p.temperature = step.tau;
        p.trainAccuracy = (out.logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
    }
};

/// --init-from: a patch classifier of the same architecture, in any mode.
InitFromCheck patchInitFrom(const PatchTrainOptions& o, const PatchConfig& config) {
    auto ourMode = [mode = config.mode](const std::string& saved) -> Result<std::string> {
        auto c = patchConfigFromJson(saved);
        if (!c) return Error{c.error()};
        c.value().mode = mode;
        return patchConfigToJson(*c);
    };
    return {o.initFrom, "patch", patchConfigToJson(config), ourMode,
            "give the same --grid, --steps, --scorer and --variant"};
}

}  // namespace

Result<TrainSummary> trainPatchModel(const PatchTrainOptions& o,
                                     const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto opening = openTrainer(
        o, o.dataset, "patch",
        {{finiteNonNegative({o.entropyBonus, o.dsrLambda, o.gumbelRate, o.finalLrFraction}),
          "the entropy bonus, DSR lambda, gumbel rate and final lr fraction must be finite and >= 0"}});
    if (!opening) return Error{opening.error()};
    const auto& start = opening->start;
    const auto& device = opening->device;
    auto loaded = startingConfig(o, start, o.model, patchConfigFromJson);
    if (!loaded) return Error{loaded.error()};
    PatchConfig config = *loaded;
    const std::uint64_t seed = start.seed;
    ReinforceBaseline baseline(start);
    auto data = openClassificationData(start, "the patch classifier");
    if (!data) return Error{data.error()};
    const Dataset& dataset = *data->dataset;
    config.inChannels = data->channels;
    config.imageSize = data->width;
    config.classes = data->classes;
    if (auto valid = validatePatchConfig(config); !valid) return Error{valid.error()};

    torch::manual_seed(seed);  // weight initialisation
    PatchClassifier net(config);
    net->to(device);  // before Adam, whose state must live beside the parameters
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    const auto initFrom = patchInitFrom(o, config);
    if (auto weights = loadStartingWeights(o, *net, adam, device, &initFrom); !weights) return Error{weights.error()};

    TrainingOrder order(dataset.size(Split::Train), seed);
    const auto eval = evaluationBatch(dataset, o.evalImages, device);

    TrainLoopSetup setup = loopSetup(o, *net, adam, "patch", patchConfigToJson(config), start.dataset, seed, start);
    baseline.wire(setup, config.mode == TrainingMode::Hard);
    const PatchStep step{o, config, net, dataset, order, {adam, opening->shard, device, seed, baseline}};
    auto evaluate = [&](TrainProgress& p) {
        p.evalSoft = accuracyUnder(net, eval.batch, "soft", 1);
        p.evalArgmax = accuracyUnder(net, eval.batch, "argmax", 1);
        p.evalSample = accuracyUnder(net, eval.batch, "sample", 1);
        return nlohmann::json{{"eval_images", eval.size},
                              {"eval_soft", p.evalSoft}, {"eval_argmax", p.evalArgmax}, {"eval_sample", p.evalSample}};
    };
    return runTrainLoop(setup, [&](std::int64_t it, double, TrainProgress& p) { step(it, p); }, evaluate, onProgress);
}

}  // namespace saccade
