#include "train/train_loop.h"

#include <chrono>
#include <cmath>

#include <torch/torch.h>

#include "train/metrics_log.h"
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
    r.seed = info->seed;
    r.dataset = info->dataset;
    r.configJson = info->configJson;
    r.baseline = info->baseline;
    return r;
}

TrainLoopSetup loopSetup(const TrainCommonOptions& o, torch::nn::Module& net, torch::optim::Optimizer& optimizer,
                         const std::string& modelType, const std::string& configJson, const std::string& dataset,
                         std::uint64_t seed, std::int64_t firstIteration, std::int64_t total) {
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
    s.firstIteration = firstIteration;
    s.totalIterations = total;
    s.minutes = o.minutes;
    s.lr = o.lr;
    s.finalLrFraction = o.finalLrFraction;
    s.evalEvery = o.evalEvery;
    s.imagesPerIteration = o.batch;
    return s;
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

Result<TrainSummary> runTrainLoop(const TrainLoopSetup& s, const TrainStep& step,
                                  const TrainEvaluation& evaluate,
                                  const std::function<bool(const TrainProgress&)>& onProgress) {
    TORCH_CHECK(s.net && s.optimizer, "runTrainLoop needs a network and an optimizer");
    MetricsLog log(s.out, s.resumed);
    CheckpointInfo info = s.info;
    std::int64_t iteration = s.firstIteration, total = s.totalIterations;
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    IterationBudget budget(total, s.minutes, s.firstIteration);
    nlohmann::json last = nlohmann::json::object();
    bool cancelled = false;
    auto stamp = [&] {
        info.iteration = iteration;
        info.totalIterations = total;
        if (s.baseline) info.baseline = *s.baseline;
        if (!last.empty()) info.metricsJson = last.dump();
    };
    try {
        while (total == 0 || iteration < total) {
            // Time budget: the iteration count is fixed once the warm-up has been timed, so the
            // schedule (and a rerun with --iterations) is reproducible.
            total = budget.update(iteration, elapsed());
            const double fraction = total > 0 ? double(iteration) / double(total) : 0.0;
            const double lr =
                s.lr * (s.finalLrFraction + (1 - s.finalLrFraction) * 0.5 * (1 + std::cos(M_PI * fraction)));
            setLearningRate(*s.optimizer, lr);
            TrainProgress p;
            step(iteration, lr, p);
            if (!std::isfinite(p.loss))
                return Error{"training stopped at iteration " + std::to_string(iteration + 1) +
                             ": the loss is not finite (" + std::to_string(p.loss) +
                             "); lower the learning rate. The last good checkpoint stays at '" + s.out + "'"};
            ++iteration;
            p.iteration = iteration;
            p.total = total;
            p.elapsedSeconds = elapsed();
            const auto done = iteration - s.firstIteration;
            p.etaSeconds = total > 0 ? p.elapsedSeconds / double(done) * double(total - iteration) : 0;
            p.lr = lr;
            const bool finished = total > 0 && iteration >= total;
            if (iteration % s.evalEvery == 0 || finished) {
                s.net->eval();
                p.evaluated = true;
                nlohmann::json extra = evaluate(p);
                s.net->train();
                last = {{"iteration", iteration}, {"images", iteration * s.imagesPerIteration},
                        {"seconds", p.elapsedSeconds}, {"loss", p.loss}, {"cross_entropy", p.crossEntropy},
                        {"reinforce", p.reinforce}, {"reward", p.reward}, {"baseline", p.baseline},
                        {"entropy", p.entropy}, {"temperature", p.temperature}, {"lr", lr},
                        {"train_batch_accuracy", p.trainAccuracy}};
                last.update(extra);
                if (auto logged = log.append(last); !logged) return Error{logged.error()};
                stamp();
                if (auto saved = saveCheckpoint(*s.net, s.optimizer, info, s.out); !saved) return Error{saved.error()};
            }
            if (onProgress && !onProgress(p)) {
                cancelled = true;
                break;
            }
        }
    } catch (const c10::Error& e) {
        return Error{std::string("training failed: ") + e.what_without_backtrace()};
    }
    stamp();
    if (auto saved = saveCheckpoint(*s.net, s.optimizer, info, s.out); !saved) return Error{saved.error()};
    TrainSummary summary;
    summary.iterations = iteration;
    summary.cancelled = cancelled;
    summary.seconds = elapsed();
    summary.imagesPerSecond =
        double(iteration - s.firstIteration) * double(s.imagesPerIteration) / std::max(1e-9, summary.seconds);
    summary.checkpoint = s.out;
    summary.metricsJson = info.metricsJson;
    return summary;
}

}  // namespace saccade
