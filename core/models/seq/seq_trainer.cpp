#include "models/seq/seq_trainer.h"

#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/seed_mix.h"
#include "data/seq_task.h"
#include "models/seq/seq_batch.h"
#include "models/seq/seq_model.h"
#include "models/seq/seq_net.h"
#include "train/attention_step.h"
#include "train/train_loop.h"
#include "train/trainer_opening.h"
#include "train/training_group.h"

namespace saccade {

namespace {
constexpr std::uint64_t kSeqDrawStream = 0x5ed;

/// Exact match of greedy decoding under `rule` on `samples` (one batch).
double exactMatch(SeqNetBase& net, const SeqTask& task, const std::vector<SeqSample>& samples, const SeqBatch& batch,
                  SelectionRule rule) {
    SelectionOptions o;
    o.rule = rule;
    o.checkFinite = false;
    Rng rng(1);
    const auto enc = net.encode(batch.source, batch.lengths);
    const auto words = net.decode(enc, net.config().maxTarget, o, rng).tokens.to(torch::kCPU);
    std::int64_t exact = 0;
    for (std::size_t b = 0; b < samples.size(); ++b) {
        const auto& target = samples[b].target;
        bool ok = words.size(1) > std::int64_t(target.size());
        for (std::size_t t = 0; ok && t < target.size(); ++t)
            ok = words[std::int64_t(b)][std::int64_t(t)].item<std::int64_t>() == task.targetVocab().id(target[t]);
        exact += ok && words[std::int64_t(b)][std::int64_t(target.size())].item<std::int64_t>() == kSeqEnd;
    }
    return double(exact) / double(samples.size());
}

/// One teacher-forced optimisation step of a sequence model, with REINFORCE when hard.
struct SeqStep {
    const SeqTrainOptions& o;
    const SeqConfig& config;
    SeqNetBase& net;
    const SeqTask& task;
    StepParts parts;

    void operator()(std::int64_t it, TrainProgress& p) const {
        std::vector<SeqSample> samples;
        for (int b = 0; b < parts.shard.size; ++b)
            samples.push_back(task.sample(Split::Train, it * o.batch + parts.shard.offset + b, parts.seed));
        const auto batch = makeSeqBatch(task, samples, parts.device);
        SelectionOptions rule;
        rule.checkFinite = false;
        if (config.hard()) rule.rule = SelectionRule::Sample;
        Rng rng(mixSeed(rankSeed(parts.seed, o.distributed.rank), kSeqDrawStream, std::uint64_t(it)));
        const auto enc = net.encode(batch.source, batch.lengths);
        const auto out = net.teacherForced(enc, batch.input, rule, rng);
        const auto mask = batch.outputMask.to(torch::kFloat);
        const auto logp = torch::log_softmax(out.logits, -1).gather(2, batch.output.unsqueeze(2)).squeeze(2) * mask;
        const auto tokens = globalCount(mask, o.distributed.worldSize);  // token means over the global batch
        const auto ce = -logp.sum() / tokens;
        auto loss = ce;
        if (config.hard()) {
            // Reward log p(target | sampled alignment), per sentence.
            const auto reinforce =
                reinforceTerm(logp.sum(1).detach(), (out.logProb * mask).sum(1), {}, parts.baseline, p);
            const auto entropy = (out.entropy * mask).sum(1).mean();
            loss = loss + reinforce / tokens * double(parts.shard.size) - o.entropyBonus * entropy;
        }
        if (!backwardStep(loss, parts.optimizer, p)) return;
        p.crossEntropy = ce.item<double>();
        p.entropy = ((out.entropy * mask).sum() / tokens).item<double>();
        p.trainAccuracy = (((out.logits.argmax(-1) == batch.output).to(torch::kFloat) * mask).sum() / tokens).item<double>();
    }
};
}  // namespace

Result<TrainSummary> trainSeqModel(const SeqTrainOptions& o, const std::function<bool(const TrainProgress&)>& onProgress) {
    const auto opening = openTrainer(
        o, o.model.task, "seq",
        {{finiteNonNegative({o.entropyBonus}), "the entropy bonus must be finite and >= 0"},
         {!(o.evalImages < 1 || o.evalEvery < 1), "evaluations need at least 1 sentence, every 1 or more iterations"}});
    if (!opening) return Error{opening.error()};
    const auto& start = opening->start;
    const auto& device = opening->device;
    auto loaded = startingConfig(o, start, o.model, seqConfigFromJson);
    if (!loaded) return Error{loaded.error()};
    SeqConfig config = *loaded;
    auto task = openSeqTask(config.task);
    if (!task) return Error{task.error()};
    config.sourceVocab = int((*task)->sourceVocab().size());
    config.targetVocab = int((*task)->targetVocab().size());
    config.maxTarget = (*task)->maxTargetLength() + 1;
    if (auto valid = validateSeqConfig(config); !valid) return Error{valid.error()};
    const std::uint64_t seed = start.seed;

    torch::manual_seed(seed);  // weight initialisation
    const auto net = makeSeqNet(config);
    net->to(device);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
    if (auto weights = loadStartingWeights(o, *net, adam, device); !weights) return Error{weights.error()};
    ReinforceBaseline baseline(start);

    std::vector<SeqSample> evalSamples;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(o.evalImages, SeqTask::kTestSize); ++i)
        evalSamples.push_back((*task)->sample(Split::Test, i, kSeqTestSeed));
    const auto evalBatch = makeSeqBatch(**task, evalSamples, device);

    TrainLoopSetup setup = loopSetup(o, *net, adam, "seq", seqConfigToJson(config), config.task, seed, start);
    baseline.wire(setup, config.hard());
    setup.clipGradNorm = 5.0;
    setup.imagesPerIteration = o.batch;
    const SeqStep step{o, config, *net, **task, {adam, opening->shard, device, seed, baseline}};
    auto evaluate = [&](TrainProgress& p) {
        torch::NoGradGuard noGrad;
        const auto deterministic = config.hard() ? SelectionRule::Argmax : SelectionRule::Soft;
        p.evalSoft = p.evalArgmax = exactMatch(*net, **task, evalSamples, evalBatch, deterministic);
        p.evalSample = config.hard() ? exactMatch(*net, **task, evalSamples, evalBatch, SelectionRule::Sample) : p.evalSoft;
        return nlohmann::json{{"eval_sentences", std::int64_t(evalSamples.size())}, {"eval_exact_match", p.evalSoft}};
    };
    return runTrainLoop(setup, [&](std::int64_t it, double, TrainProgress& p) { step(it, p); }, evaluate, onProgress);
}

}  // namespace saccade
