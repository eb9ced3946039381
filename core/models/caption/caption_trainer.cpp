#include "models/caption/caption_trainer.h"

#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "attention/reinforce.h"
#include "common/device.h"
#include "common/seed_mix.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "data/procedural_scenes.h"
#include "models/caption/caption_data.h"
#include "models/caption/caption_eval.h"
#include "models/caption/caption_network.h"
#include "train/train_loop.h"
#include "train/training_group.h"
#include "train/train_order.h"

namespace saccade {

namespace {

constexpr std::uint64_t kCaptionDrawStream = 0xca1, kCaptionMixStream = 0xca2;

}  // namespace

Result<TrainSummary> trainCaptionModel(const CaptionTrainOptions& o,
                                       const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto shard = checkTrainOptions(o);
    if (!shard) return Error{shard.error()};
    for (double v : {o.dsrLambda, o.attentionEntropy, o.entropyBonus, o.gumbelRate, o.finalLrFraction})
        if (!std::isfinite(v) || v < 0)
            return Error{"the DSR lambda, attention entropy, entropy bonus, gumbel rate and final lr fraction must be finite and >= 0"};
    if (!(o.expectationMix >= 0 && o.expectationMix <= 1)) return Error{"the expectation mix must be in [0, 1]"};
    if (o.evalEvery < 1 || o.evalImages < 1) return Error{"evaluation period and images must be at least 1"};
    auto device = resolveDevice(trainingDeviceSpec(o.device, o.distributed, int(torch::cuda::device_count())));
    if (!device) return Error{device.error()};

    auto start = runStart(o, o.dataset, "caption");
    if (!start) return Error{start.error()};
    CaptionConfig config = o.model;
    if (start->resumed) {
        auto saved = captionConfigFromJson(start->configJson);
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
    if (!(*dataset)->sample(Split::Train, 0).captionWords.size())
        return Error{"dataset '" + datasetName + "' has no captions (use scenes64 or scenes96)"};
    config.inChannels = dinfo.channels;
    config.imageSize = dinfo.width;
    config.vocabulary = sceneVocabulary();
    if (o.resume.empty() && config.maxLength <= 0) {
        // Room for the longest caption of the first 2,000 training scenes, <start> and <end>.
        std::size_t longest = 0;
        for (std::int64_t i = 0; i < 2000; ++i)
            longest = std::max(longest, (*dataset)->sample(Split::Train, i).captionWords.size());
        config.maxLength = int(longest) + 2;
    }
    if (auto valid = validateCaptionConfig(config); !valid) return Error{valid.error()};
    if (o.attentionEntropy > 0 && config.mode != "soft")
        return Error{"the attention entropy weight applies to soft training only (this is " + config.mode + ")"};
    if (o.attentionEntropyWarmup < 0) return Error{"the attention entropy warm-up must be >= 0 iterations"};
    if (o.attentionEntropyWarmup > 0 && !(o.attentionEntropy > 0))
        return Error{"an attention entropy warm-up needs an attention entropy weight above 0"};

    torch::manual_seed(seed);
    CaptionNetwork net(config);
    net->to(*device);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    if (!o.resume.empty()) {
        if (auto loaded = loadCheckpointWeights(*net, &adam, o.resume, &*device); !loaded) return Error{loaded.error()};
    } else if (!o.initFrom.empty()) {
        auto ourSettings = [&](const std::string& saved) -> Result<std::string> {
            auto c = captionConfigFromJson(saved);
            if (!c) return Error{c.error()};
            c.value().mode = config.mode;
            c.value().dropout = config.dropout;
            return captionConfigToJson(*c);
        };
        if (auto same = checkInitFrom(o.initFrom, "caption", captionConfigToJson(config), ourSettings,
                                      "give the same --grid, --scorer, --encoder, --cell-positions and layer sizes");
            !same)
            return Error{same.error()};
        if (auto loaded = loadCheckpointWeights(*net, nullptr, o.initFrom, &*device); !loaded) return Error{loaded.error()};
    }

    const std::int64_t trainSize = (*dataset)->size(Split::Train);
    TrainingOrder order(trainSize, seed);
    std::vector<std::int64_t> evalIdx(static_cast<std::size_t>(std::min(o.evalImages, (*dataset)->size(Split::Test))));
    std::iota(evalIdx.begin(), evalIdx.end(), 0);
    std::vector<Sample> evalSamples;
    const auto evalBatch = makeBatch(**dataset, Split::Test, evalIdx, *device, &evalSamples);

    TrainLoopSetup setup = loopSetup(o, *net, adam, "caption", captionConfigToJson(config), datasetName, seed, iteration, total);
    double baselineValue = baseline.value();
    setup.baseline = &baselineValue;

    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        // This rank's slice of the global batch, and its own draws. Every pass over the split sees
        // new scenes (index i + pass * n is a new scene).
        const int rows = shard->size;
        std::vector<std::int64_t> idx(static_cast<std::size_t>(rows));
        for (int b = 0; b < rows; ++b) {
            const std::int64_t position = it * o.batch + shard->offset + b;
            idx[size_t(b)] = order.at(position) + position / trainSize * trainSize;
        }
        std::vector<Sample> samples;
        const auto batch = makeBatch(**dataset, Split::Train, idx, *device, &samples);
        const auto tokens = captionTokens(samples, config, *device);
        const auto drawSeed = rankSeed(seed, o.distributed.rank);
        Rng rng(mixSeed(drawSeed, kCaptionDrawStream, static_cast<std::uint64_t>(it)));
        SelectionOptions rule;
        torch::Tensor mix;
        double tau = 0;
        if (config.mode == "hard") {
            rule.rule = SelectionRule::Sample;
            mix = Rng(mixSeed(drawSeed, kCaptionMixStream, it)).uniform({rows}, *device) < o.expectationMix;
        } else if (config.mode == "gumbel") {
            rule.rule = SelectionRule::Gumbel;
            tau = std::max(0.5, std::exp(-o.gumbelRate * double(it)));
            rule.temperature = tau;
        }
        const auto annotations = net->encode(batch.images);
        const auto out = net->teacherForced(annotations, tokens, rule, rng, mix);
        const auto targets = tokens.narrow(1, 1, tokens.size(1) - 1).transpose(0, 1);  // [T, B]
        const auto mask = (targets != kPadToken).to(torch::kFloat);
        const auto logp = torch::log_softmax(out.wordLogits, -1).gather(2, targets.unsqueeze(2)).squeeze(2) * mask;
        // Word means are over the global batch: each rank divides by its share of all the ranks'
        // words, so that the averaged gradient is one process's (the scale is exactly 1 alone).
        const double localWords = mask.sum().item<double>();
        const double scale = sumOverRanks(localWords) / (localWords * double(o.distributed.worldSize));
        const auto words = (mask.sum() * scale).detach();
        const auto ce = -logp.sum() / words;
        const auto meanEntropy = (out.entropy * mask).sum() / words;  // of the attention, per word
        auto loss = ce;
        if (config.mode == "hard") {
            const auto reward = logp.sum(0).detach();  // log p(caption | locations), per caption
            p.reward = reward.mean().item<double>();
            const auto chose = mix.logical_not().to(reward.dtype());
            const auto advantage = (reward - baseline.value()) * chose;
            const auto reinforce = -(advantage * (out.logProb * mask).sum(0)).mean();
            const auto entropy = (out.entropy * mask).sum(0).mean();
            loss = loss + reinforce / words.detach() * double(rows) - o.entropyBonus * entropy;
            p.reinforce = reinforce.item<double>();
        } else if (config.mode == "soft") {
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
        }
        p.loss = loss.item<double>();
        if (!std::isfinite(p.loss)) return;
        adam.zero_grad();
        loss.backward();
        p.crossEntropy = ce.item<double>();
        p.entropy = meanEntropy.item<double>();
        p.temperature = tau;
        const auto predicted = out.wordLogits.argmax(-1);
        p.trainAccuracy = (((predicted == targets).to(torch::kFloat) * mask).sum() / words).item<double>();
    };
    setup.clipGradNorm = 5.0;
    setup.afterStep = [&](TrainProgress& p) {
        if (config.mode == "hard") baselineValue = baseline.update(p.reward);
        p.baseline = baseline.value();
    };
    auto evaluate = [&](TrainProgress& p) {
        torch::NoGradGuard noGrad;
        nlohmann::json row{{"eval_images", static_cast<std::int64_t>(evalIdx.size())}};
        const std::string deterministic = config.mode == "soft" ? "soft" : "argmax";
        for (const char* name : {"soft", "argmax", "sample"}) {
            auto rule = parseCaptionRule(name, config.mode);
            Rng rng(1);
            const auto captions = decodeImages(net, evalBatch.images, *rule, rng);
            CaptionScoreAccumulator acc(name, config.grid, config.imageSize);
            for (std::size_t i = 0; i < captions.size(); ++i) acc.add(evalSamples[i], captions[i]);
            const auto s = acc.scores();
            row[std::string("eval_exact_") + name] = s.exactMatch;
            if (std::string(name) == "soft") p.evalSoft = s.exactMatch;
            if (std::string(name) == "argmax") p.evalArgmax = s.exactMatch;
            if (std::string(name) == "sample") p.evalSample = s.exactMatch;
            if (name == deterministic) {
                p.evalBleu4 = s.bleu.bleu[3];
                const auto objects = s.correctness.total(objectWordClasses());
                p.evalAttention = objects.words ? objects.massSum.value() / double(objects.words) : 0;
                row["eval_bleu4"] = p.evalBleu4;
                row["eval_attention_mass"] = p.evalAttention;
                row["eval_attention_hit"] = objects.words ? double(objects.hits) / double(objects.words) : 0;
            }
        }
        return row;
    };
    return runTrainLoop(setup, step, evaluate, onProgress);
}

}  // namespace saccade
