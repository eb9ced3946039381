#include "train/train_loop.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include <torch/torch.h>

#include "common/torch_errors.h"
#include "train/metrics_log.h"
#include "train/training_group.h"
#include "train/train_order.h"

namespace saccade {

namespace {

void setLearningRate(torch::optim::Optimizer& optimizer, double lr) {
    for (auto& group : optimizer.param_groups()) {
        // Adam is what every trainer uses today; other optimisers keep their rate.
        if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&group.options())) adam->lr(lr);
    }
}

}  // namespace

Result<RunStart> runStart(const TrainCommonOptions& o, const std::string& dataset, const std::string& modelType) {
    RunStart r;
    r.total = o.iterations;
    r.seed = o.seed;
    r.dataset = dataset;
    if (o.resume.empty()) return r;
    auto info = readCheckpointInfo(o.resume);
    if (!info) return Error{info.error()};
    if (info->modelType != modelType)
        return Error{"cannot resume '" + o.resume + "': it holds a " + info->modelType + " model, not a " + modelType +
                     " model"};
    r.resumed = true;
    r.iteration = info->iteration;
    r.total = o.iterations > 0 ? o.iterations : info->totalIterations;
    // --iterations is the run's total, not a count to add: a total the checkpoint has reached
    // would save it again untrained (a time-budgeted run, total 0, trains until its minutes end).
    if (r.total > 0 && r.total <= r.iteration)
        return Error{"'" + o.resume + "' is already at iteration " + std::to_string(r.iteration) +
                     "; --iterations is the total to reach, so give more than " + std::to_string(r.iteration)};
    r.seed = info->seed;
    r.dataset = info->dataset;
    r.configJson = info->configJson;
    r.baseline = info->baseline;
    r.earlierSchedules = earlierSchedules(*info, r.total);
    return r;
}

TrainLoopSetup loopSetup(const TrainCommonOptions& o, torch::nn::Module& net, torch::optim::Optimizer& optimizer,
                         const std::string& modelType, const std::string& configJson, const std::string& dataset,
                         std::uint64_t seed, const RunStart& start) {
    TrainLoopSetup s;
    s.net = &net;
    s.optimizer = &optimizer;
    s.info.modelType = modelType;
    s.info.configJson = configJson;
    s.info.dataset = dataset;
    s.info.seed = seed;
    s.info.gitRevision = buildGitRevision();
    s.info.command = o.command;
    s.out = o.out;
    s.resumed = !o.resume.empty();
    s.firstIteration = start.iteration;
    s.totalIterations = start.total;
    s.minutes = o.minutes;
    s.lr = o.lr;
    s.finalLrFraction = o.finalLrFraction;
    s.evalEvery = o.evalEvery;
    s.imagesPerIteration = o.batch;
    s.distributed = o.distributed;
    s.resumedFrom = o.resume;
    s.info.earlierSchedules = start.earlierSchedules;
    return s;
}

std::string recreateRecipe(const std::string& command, const std::string& train, const std::string& out,
                           const std::string& suffix,
                           const std::vector<std::pair<std::int64_t, std::int64_t>>& schedules) {
    std::string text = command;
    for (std::size_t k = 0; k < schedules.size(); ++k) {
        const auto [until, total] = schedules[k];
        if (k > 0) text += "; then saccade-cli " + train + " --resume " + out;
        text += " --iterations " + std::to_string(total) + " --out " + out + suffix;
        if (until < total) text += ", stopped at iteration " + std::to_string(until);
    }
    return text;
}

std::vector<std::pair<std::int64_t, std::int64_t>> earlierSchedules(const CheckpointInfo& resumed, std::int64_t total) {
    auto schedules = resumed.earlierSchedules;
    if (total > 0 && resumed.totalIterations > 0 && resumed.totalIterations != total)
        schedules.emplace_back(resumed.iteration, resumed.totalIterations);
    return schedules;
}

Result<Unit> checkInitFrom(const std::string& path, const std::string& modelType, const std::string& configJson,
                           const std::function<Result<std::string>(const std::string&)>& ourSettings,
                           const std::string& hint) {
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    if (info->modelType != modelType)
        return Error{"cannot start from '" + path + "': it holds a " + info->modelType + " model, not a " + modelType +
                     " model"};
    auto same = ourSettings(info->configJson);
    if (!same) return Error{"cannot start from '" + path + "': " + same.error()};
    if (*same != configJson)
        return Error{"cannot start from '" + path + "': its architecture differs (" + info->configJson + "); " + hint};
    return Unit{};
}

Result<Unit> checkTrainBudget(const std::string& out, int batch, double lr, double minutes,
                              std::int64_t iterations, bool resuming) {
    if (auto checked = checkOutputPath(out); !checked) return Error{checked.error()};
    if (batch < 1 || batch > 65536) return Error{"the batch size must be 1..65536"};
    if (!std::isfinite(lr) || lr <= 0) return Error{"the learning rate must be a positive finite number"};
    if (!std::isfinite(minutes) || minutes < 0) return Error{"the time budget must be a finite number of minutes >= 0"};
    if (iterations < 0) return Error{"the iteration count must be >= 0"};
    if (iterations == 0 && minutes <= 0 && !resuming) return Error{"give a time budget (minutes) or an iteration count"};
    return Unit{};
}

namespace {

/// How long the other ranks wait for rank 0's evaluation and checkpoint (any evaluation size).
constexpr double kEvaluationWaitSeconds = 7 * 24 * 3600.0;

/// What every rank must agree on before the first step: the same model, data, schedule and start.
double settingsFingerprint(const TrainLoopSetup& s) {
    std::string text = s.info.modelType + "|" + s.info.configJson + "|" + s.info.dataset + "|" +
                       std::to_string(s.info.seed) + "|" + std::to_string(s.firstIteration) + "|" +
                       std::to_string(s.totalIterations) + "|" + std::to_string(s.minutes) + "|" +
                       std::to_string(s.lr) + "|" + std::to_string(s.finalLrFraction) + "|" +
                       std::to_string(s.clipGradNorm) + "|" + std::to_string(s.evalEvery) + "|" +
                       std::to_string(s.imagesPerIteration) + "|" + s.info.command;
    if (!s.resumedFrom.empty()) {
        auto crc = fileCrc32(s.resumedFrom);
        text += "|" + (crc ? *crc : std::string("unreadable"));
    }
    return static_cast<double>(std::stoul(crc32Hex(text), nullptr, 16));
}

}  // namespace

Result<BatchShard> checkTrainOptions(const TrainCommonOptions& o) {
    if (auto ok = checkTrainBudget(o.out, o.batch, o.lr, o.minutes, o.iterations, !o.resume.empty()); !ok)
        return Error{ok.error()};
    return batchShard(o.distributed, o.batch);
}

namespace {

/// One run of the loop: its group, metrics log, clock, iteration budget and what the sidecar
/// saves. Errors inside a step or evaluation come back as Results; GroupError and c10::Error
/// propagate to runTrainLoop.
class LoopRun {
public:
    explicit LoopRun(const TrainLoopSetup& setup)
        : s(setup), dist(setup.distributed), leader(setup.distributed.rank == 0), info(setup.info),
          iteration(setup.firstIteration), total(setup.totalIterations),
          budget(setup.totalIterations, setup.minutes, setup.firstIteration) {}

    /// Joins the group (when the settings ask for one), opens the metrics log and starts the clock.
    Result<Unit> open() {
        if (dist.active()) {
            auto joined = TrainingGroup::join(dist);
            if (!joined) return Error{joined.error()};
            group = std::move(joined).value();
        }
        if (leader) log.emplace(s.out, s.resumed);
        start = std::chrono::steady_clock::now();
        return Unit{};
    }
    TrainingGroup* trainingGroup() const { return group.get(); }

    /// Every rank's settings agree; rank 0's parameters are broadcast; each rank seeds its draws.
    Result<Unit> agree() {
        if (!group) return Unit{};
        if (!group->sameOnAllRanks(settingsFingerprint(s)))
            return Error{rankName(dist) + ": the ranks were started with different settings (model, dataset, "
                         "seed, budget or resumed checkpoint): give every rank the same command"};
        group->broadcastParameters(*s.net);
        // Each rank's own dropout and other global draws; rank 0 keeps the single-process stream.
        if (!leader) torch::manual_seed(rankSeed(s.info.seed, dist.rank));
        return Unit{};
    }

    /// The iterations until the budget is spent or a rank cancels.
    Result<Unit> train(const TrainStep& step, const TrainEvaluation& evaluate,
                       const std::function<bool(const TrainProgress&)>& onProgress) {
        while (total == 0 || iteration < total) {
            const double lr = scheduledLr();
            TrainProgress p;
            step(iteration, lr, p);
            if (group) averageFigures(p);
            if (!std::isfinite(p.loss))
                return Error{"training stopped at iteration " + std::to_string(iteration + 1) +
                             ": the loss is not finite (" + std::to_string(p.loss) +
                             "); lower the learning rate. The last good checkpoint stays at '" + s.out + "'"};
            if (group) group->averageGradients(*s.net);
            if (s.clipGradNorm > 0) torch::nn::utils::clip_grad_norm_(s.net->parameters(), s.clipGradNorm);
            s.optimizer->step();
            if (s.afterStep) s.afterStep(p);
            ++iteration;
            p.iteration = iteration;
            p.total = total;
            p.elapsedSeconds = elapsed();
            const auto done = iteration - s.firstIteration;
            p.etaSeconds = total > 0 ? p.elapsedSeconds / double(done) * double(total - iteration) : 0;
            p.lr = lr;
            const bool finished = total > 0 && iteration >= total;
            if (iteration % s.evalEvery == 0 || finished)
                if (auto evaluated = evaluateAndSave(p, evaluate); !evaluated) return evaluated;
            bool stop = onProgress && !onProgress(p);
            if (group) stop = group->anyRank(stop);
            if (stop) {
                cancelled = true;
                break;
            }
        }
        return Unit{};
    }

    /// The ranks' parameters agree; the final checkpoint and the summary.
    Result<TrainSummary> close() {
        TrainSummary summary;
        if (group) {
            summary.parametersCrc = parametersCrc32(*s.net);
            try {
                const double crc = static_cast<double>(std::stoul(summary.parametersCrc, nullptr, 16));
                if (!group->sameOnAllRanks(crc))
                    return Error{rankName(dist) + ": the ranks' parameters differ after training (CRC-32 " +
                                 summary.parametersCrc + " here): the run is not data-parallel; report it"};
            } catch (const GroupError& e) {
                return Error{std::string("training stopped: ") + e.what()};
            }
        }
        stamp();
        if (leader)
            if (auto saved = saveCheckpoint(*s.net, s.optimizer, info, s.out); !saved) return Error{saved.error()};
        summary.iterations = iteration;
        summary.cancelled = cancelled;
        summary.seconds = elapsed();
        summary.trainSeconds = std::max(1e-9, summary.seconds - evalSeconds);
        summary.imagesPerSecond =
            double(iteration - s.firstIteration) * double(s.imagesPerIteration) / summary.trainSeconds;
        summary.checkpoint = leader ? s.out : std::string();
        summary.metricsJson = info.metricsJson;
        return summary;
    }

private:
    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    /// This iteration's learning rate on the cosine schedule, set on the optimizer. Time budget:
    /// the iteration count is fixed once the warm-up has been timed, so the schedule (and a rerun
    /// with --iterations) is reproducible; in a group, rank 0's count.
    double scheduledLr() {
        if (total == 0) {
            total = budget.update(iteration, elapsed());
            if (total > 0 && group) total = static_cast<std::int64_t>(group->broadcastValue(double(total)));
        }
        const double fraction = total > 0 ? double(iteration) / double(total) : 0.0;
        const double lr = s.lr * (s.finalLrFraction + (1 - s.finalLrFraction) * 0.5 * (1 + std::cos(M_PI * fraction)));
        setLearningRate(*s.optimizer, lr);
        return lr;
    }

    /// The global batch's figures: every rank's shard has the same size.
    void averageFigures(TrainProgress& p) {
        auto sums = group->sum({p.loss, p.crossEntropy, p.reinforce, p.reward, p.entropy, p.trainAccuracy, p.baseline});
        for (auto& v : sums) v /= double(dist.worldSize);
        p.loss = sums[0], p.crossEntropy = sums[1], p.reinforce = sums[2], p.reward = sums[3];
        p.entropy = sums[4], p.trainAccuracy = sums[5], p.baseline = sums[6];  // RAM: its learned baseline
    }

    /// Rank 0 evaluates, logs and saves the checkpoint while the other ranks wait for it.
    Result<Unit> evaluateAndSave(TrainProgress& p, const TrainEvaluation& evaluate) {
        const std::string evaluated = "evaluated " + std::to_string(iteration);  // the store's key
        if (group && !leader) group->waitForLeader(evaluated, kEvaluationWaitSeconds);
        if (!leader) return Unit{};
        const double evalStart = elapsed();
        s.net->eval();
        p.evaluated = true;
        nlohmann::json extra = evaluate(p);
        s.net->train();
        last = {{"iteration", iteration}, {"images", iteration * s.imagesPerIteration},
                {"seconds", p.elapsedSeconds}, {"loss", p.loss}, {"cross_entropy", p.crossEntropy},
                {"reinforce", p.reinforce}, {"reward", p.reward}, {"baseline", p.baseline},
                {"entropy", p.entropy}, {"temperature", p.temperature}, {"lr", p.lr},
                {"train_batch_accuracy", p.trainAccuracy}};
        if (group) last["world_size"] = dist.worldSize;
        last.update(extra);
        if (auto logged = log->append(last); !logged) return Error{logged.error()};
        stamp();
        if (auto saved = saveCheckpoint(*s.net, s.optimizer, info, s.out); !saved) return Error{saved.error()};
        evalSeconds += elapsed() - evalStart;
        if (group) group->leaderDone(evaluated);
        return Unit{};
    }

    /// The sidecar's figures as they stand.
    void stamp() {
        info.iteration = iteration;
        info.totalIterations = total;
        if (s.baseline) info.baseline = *s.baseline;
        if (!last.empty()) info.metricsJson = last.dump();
    }

    const TrainLoopSetup& s;
    const DistributedSettings& dist;
    const bool leader;
    std::unique_ptr<TrainingGroup> group;
    std::optional<MetricsLog> log;
    CheckpointInfo info;
    std::int64_t iteration, total;
    std::chrono::steady_clock::time_point start;
    IterationBudget budget;
    nlohmann::json last = nlohmann::json::object();
    bool cancelled = false;
    double evalSeconds = 0;  // evaluations and checkpoints: not training time
};

}  // namespace

Result<TrainSummary> runTrainLoop(const TrainLoopSetup& s, const TrainStep& step,
                                  const TrainEvaluation& evaluate,
                                  const std::function<bool(const TrainProgress&)>& onProgress) {
    TORCH_CHECK(s.net && s.optimizer, "runTrainLoop needs a network and an optimizer");
    LoopRun run(s);
    if (auto opened = run.open(); !opened) return Error{opened.error()};
    TrainingGroup::Scope scope(run.trainingGroup());  // sumOverRanks in the family's step
    try {
        if (auto agreed = run.agree(); !agreed) return Error{agreed.error()};
        if (auto trained = run.train(step, evaluate, onProgress); !trained) return Error{trained.error()};
    } catch (const GroupError& e) {
        return Error{std::string("training stopped: ") + e.what()};
    } catch (const std::exception& e) {  // LibTorch's (c10::Error), or std::bad_alloc
        if (isOutOfMemory(e))
            return Error{"training ran out of memory (" + torchErrorLine(e) + "); give a smaller --batch"};
        return Error{"training failed: " + torchErrorLine(e)};
    }
    return run.close();
}

}  // namespace saccade
