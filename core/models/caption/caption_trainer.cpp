#include "models/caption/caption_trainer.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/seed_mix.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "data/procedural_scenes.h"
#include "models/caption/caption_data.h"
#include "models/caption/caption_eval.h"
#include "models/caption/caption_network.h"
#include "train/attention_step.h"
#include "train/train_loop.h"
#include "train/training_group.h"
#include "train/train_order.h"
#include "train/trainer_opening.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {

constexpr std::uint64_t kCaptionDrawStream = 0xca1, kCaptionMixStream = 0xca2;

/// The dataset's image size, channels and vocabulary, a caption length that fits (fresh runs
/// whose maxLength is 0), and the checks of the attention entropy options against the config.
Result<Unit> fitCaptionConfig(CaptionConfig& config, const CaptionTrainOptions& o, const Dataset& dataset,
                              const std::string& datasetName) {
    const auto& dinfo = dataset.info();
    if (!dataset.sample(Split::Train, 0).captionWords.size())
        return Error{"dataset '" + datasetName + "' has no captions (use scenes64 or scenes96)"};
    config.inChannels = dinfo.channels;
    config.imageSize = dinfo.width;
    config.vocabulary = sceneVocabulary();
    if (o.resume.empty() && config.maxLength <= 0) {
        // Room for the longest caption of the first 2,000 training scenes, <start> and <end>.
        std::size_t longest = 0;
        for (std::int64_t i = 0; i < 2000; ++i)
            longest = std::max(longest, dataset.sample(Split::Train, i).captionWords.size());
        config.maxLength = int(longest) + 2;
    }
    if (auto valid = validateCaptionConfig(config); !valid) return Error{valid.error()};
    if (o.attentionEntropy > 0 && config.mode != TrainingMode::Soft)
        return Error{"the attention entropy weight applies to soft training only (this is " + trainingModeName(config.mode) + ")"};
    if (o.attentionEntropyWarmup < 0) return Error{"the attention entropy warm-up must be >= 0 iterations"};
    if (o.attentionEntropyWarmup > 0 && !(o.attentionEntropy > 0))
        return Error{"an attention entropy warm-up needs an attention entropy weight above 0"};
    return Unit{};
}

/// --init-from: a captioner of the same architecture, in any mode and with any dropout.
InitFromCheck captionInitFrom(const CaptionTrainOptions& o, const CaptionConfig& config) {
    auto ourSettings = [mode = config.mode, dropout = config.dropout](const std::string& saved) -> Result<std::string> {
        auto c = captionConfigFromJson(saved);
        if (!c) return Error{c.error()};
        c.value().mode = mode;
        c.value().dropout = dropout;
        return captionConfigToJson(*c);
    };
    return {o.initFrom, "caption", captionConfigToJson(config), ourSettings,
            "give the same --grid, --scorer, --encoder, --cell-positions and layer sizes"};
}

/// One teacher-forced optimisation step of the captioner: soft, hard (REINFORCE) or gumbel.
struct CaptionStep {
    const CaptionTrainOptions& o;
    const CaptionConfig& config;
    CaptionNetwork& net;
    const Dataset& dataset;
    TrainingOrder& order;
    StepParts parts;

    void operator()(std::int64_t it, TrainProgress& p) const {
        // This rank's slice of the global batch, and its own draws. Every pass over the split sees
        // new scenes (index i + pass * n is a new scene).
        std::vector<Sample> samples;
        const auto batch = makeBatch(dataset, Split::Train,
                                     shardIndices(order, it, o.batch, parts.shard, Passes::Fresh), parts.device, &samples);
        const auto tokens = captionTokens(samples, config, parts.device);
        const auto drawSeed = rankSeed(parts.seed, o.distributed.rank);
        Rng rng(mixSeed(drawSeed, kCaptionDrawStream, static_cast<std::uint64_t>(it)));
        const auto step = stepRule(config.mode, it, parts.shard.size, parts.device, o.expectationMix,
                                   mixSeed(drawSeed, kCaptionMixStream, it), o.gumbelRate);
        const auto annotations = net->encode(batch.images);
        const auto out = net->teacherForced(annotations, tokens, step.rule, rng, step.mix);
        const auto targets = tokens.narrow(1, 1, tokens.size(1) - 1).transpose(0, 1);  // [T, B]
        const auto mask = (targets != kPadToken).to(torch::kFloat);
        const auto logp = torch::log_softmax(out.wordLogits, -1).gather(2, targets.unsqueeze(2)).squeeze(2) * mask;
        // Word means are over the global batch.
        const auto words = globalCount(mask, o.distributed.worldSize);
        const auto ce = -logp.sum() / words;
        const auto meanEntropy = (out.entropy * mask).sum() / words;  // of the attention, per word
        auto loss = ce;
        if (config.mode == TrainingMode::Hard) {
            // Reward log p(caption | locations), per caption.
            const auto reinforce = reinforceTerm(logp.sum(0).detach(), (out.logProb * mask).sum(0), step.mix,
                                                 parts.baseline, p);
            const auto entropy = (out.entropy * mask).sum(0).mean();
            loss = loss + reinforce / words.detach() * double(parts.shard.size) - o.entropyBonus * entropy;
        } else if (config.mode == TrainingMode::Soft) {
            loss = softRegularised(loss, out, mask, meanEntropy, it);
        }
        if (!backwardStep(loss, parts.optimizer, p)) return;
        p.crossEntropy = ce.item<double>();
        p.entropy = meanEntropy.item<double>();
        p.temperature = step.tau;
        const auto predicted = out.wordLogits.argmax(-1);
        p.trainAccuracy = (((predicted == targets).to(torch::kFloat) * mask).sum() / words).item<double>();
    }

    /// Soft training's `loss` plus the doubly stochastic regulariser and the attention entropy.
    template <class Output>
    torch::Tensor softRegularised(torch::Tensor loss, const Output& out, const torch::Tensor& mask,
                                  const torch::Tensor& meanEntropy, std::int64_t it) const {
        if (o.dsrLambda > 0) {
            const auto coverage = (out.probs * mask.unsqueeze(2)).sum(0);  // [B, L]
            loss = loss + o.dsrLambda * (1 - coverage).pow(2).sum(-1).mean() / double(config.grid * config.grid);
        }
        if (o.attentionEntropy > 0) {
            // Iteration it (from 0) has weight W min(1, (it + 1) / warmup): W itself from the
            // warm-up's last iteration on.
            const double ramp = o.attentionEntropyWarmup > 0
                                    ? std::min(1.0, double(it + 1) / double(o.attentionEntropyWarmup))
                                    : 1.0;
            loss = loss + o.attentionEntropy * ramp * meanEntropy;
        }
        return loss;
    }
};

/// Exact match under soft, argmax and sample decoding; BLEU-4 and the attention on the named
/// objects under the model's deterministic rule.
nlohmann::json evaluateCaptioner(CaptionNetwork& net, const CaptionConfig& config, const EvaluationBatch& eval,
                                 TrainProgress& p) {
    torch::NoGradGuard noGrad;
    nlohmann::json row{{"eval_images", eval.size}};
    const RuleKind deterministic = config.mode == TrainingMode::Soft ? RuleKind::Soft : RuleKind::Argmax;
    for (const RuleKind kind : {RuleKind::Soft, RuleKind::Argmax, RuleKind::Sample}) {
        const std::string name = ruleName(kind);
        auto rule = parseCaptionRule(name, config.mode);
        Rng rng(1);
        const auto captions = decodeImages(net, eval.batch.images, *rule, rng);
        CaptionScoreAccumulator acc(name, config.grid, config.imageSize);
        for (std::size_t i = 0; i < captions.size(); ++i) acc.add(eval.samples[i], captions[i]);
        const auto s = acc.scores();
        row["eval_exact_" + name] = s.exactMatch;
        (kind == RuleKind::Soft ? p.evalSoft : kind == RuleKind::Argmax ? p.evalArgmax : p.evalSample) = s.exactMatch;
        if (kind == deterministic) {
            p.evalBleu4 = s.bleu.bleu[3];
            const auto objects = s.correctness.total(objectWordClasses());
            p.evalAttention = objects.words ? objects.massSum.value() / double(objects.words) : 0;
            row["eval_bleu4"] = p.evalBleu4;
            row["eval_attention_mass"] = p.evalAttention;
            row["eval_attention_hit"] = objects.words ? double(objects.hits) / double(objects.words) : 0;
        }
    }
    return row;
}

}  // namespace

Result<TrainSummary> trainCaptionModel(const CaptionTrainOptions& o,
                                       const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto opening = openTrainer(
        o, o.dataset, "caption",
        {{finiteNonNegative({o.dsrLambda, o.attentionEntropy, o.entropyBonus, o.gumbelRate, o.finalLrFraction}),
          "the DSR lambda, attention entropy, entropy bonus, gumbel rate and final lr fraction must be finite and >= 0"},
         {o.expectationMix >= 0 && o.expectationMix <= 1, "the expectation mix must be in [0, 1]"},
         {!(o.evalEvery < 1 || o.evalImages < 1), "evaluation period and images must be at least 1"}});
    if (!opening) return Error{opening.error()};
    const auto& start = opening->start;
    const auto& device = opening->device;
    auto loaded = startingConfig(o, start, o.model, captionConfigFromJson);
    if (!loaded) return Error{loaded.error()};
    CaptionConfig config = *loaded;
    const std::uint64_t seed = start.seed;
    ReinforceBaseline baseline(start);
    auto dataset = openDataset(start.dataset, {"", seed});
    if (!dataset) return Error{dataset.error()};
    if (auto fitted = fitCaptionConfig(config, o, **dataset, start.dataset); !fitted) return Error{fitted.error()};

    torch::manual_seed(seed);
    CaptionNetwork net(config);
    net->to(device);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    const auto initFrom = captionInitFrom(o, config);
    if (auto weights = loadStartingWeights(o, *net, adam, device, &initFrom); !weights) return Error{weights.error()};

    TrainingOrder order((*dataset)->size(Split::Train), seed);
    const auto eval = evaluationBatch(**dataset, o.evalImages, device, /*keepSamples=*/true);

    TrainLoopSetup setup = loopSetup(o, *net, adam, "caption", captionConfigToJson(config), start.dataset, seed, start);
    baseline.wire(setup, config.mode == TrainingMode::Hard);
    setup.clipGradNorm = 5.0;
    const CaptionStep step{o, config, net, **dataset, order, {adam, opening->shard, device, seed, baseline}};
    return runTrainLoop(
        setup, [&](std::int64_t it, double, TrainProgress& p) { step(it, p); },
        [&](TrainProgress& p) { return evaluateCaptioner(net, config, eval, p); }, onProgress);
}

}  // namespace saccade
