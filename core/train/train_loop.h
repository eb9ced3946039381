#pragma once
// The training loop every model family shares (patch classifier, RAM, captioner): the time or
// iteration budget, the cosine learning-rate schedule, progress with cancel (Ctrl-C in the CLI,
// Cancel in the GUI), periodic evaluation, the metrics log, atomic checkpoints, a loss that turns
// NaN (training stops and the last good checkpoint stays), and the summary. A family supplies
// only what differs: one optimisation step and one evaluation.
// Engine header: includes LibTorch.

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "common/result.h"
#include "io/checkpoint.h"
#include "train/train_options.h"
#include "train/train_progress.h"

namespace saccade {

/// What the loop needs besides the family's step and evaluation.
struct TrainLoopSetup {
    torch::nn::Module* net = nullptr;           ///< saved in checkpoints; not owned
    torch::optim::Optimizer* optimizer = nullptr;  ///< its learning rate follows the schedule
    CheckpointInfo info;        ///< modelType, config, dataset, seed, command: the sidecar
    std::string out;            ///< checkpoint path (.pt); metrics beside it
    bool resumed = false;       ///< continue the metrics log beside `out`
    std::int64_t firstIteration = 0, totalIterations = 0;  ///< total 0: decided by `minutes`
    double minutes = 0;
    double lr = 1e-3, finalLrFraction = 0.05;  ///< cosine from lr to lr * finalLrFraction
    std::int64_t evalEvery = 500;
    std::int64_t imagesPerIteration = 1;       ///< for images/s and the log's "images"
    /// Updated after every step (REINFORCE's moving average), saved in the sidecar.
    const double* baseline = nullptr;
};

/// One optimisation step at `iteration` (0-based) with learning rate `lr`: fills the loss fields
/// of `progress` (loss, crossEntropy, reinforce, reward, baseline, entropy, temperature,
/// trainAccuracy). Throws c10::Error on LibTorch failures (the loop reports them).
using TrainStep = std::function<void(std::int64_t iteration, double lr, TrainProgress& progress)>;
/// Evaluates the network (the loop switches it to eval mode and back): sets the eval fields of
/// `progress` and returns the extra columns of the metrics row.
using TrainEvaluation = std::function<nlohmann::json(TrainProgress& progress)>;

/// Runs the loop until the budget is spent or `onProgress` returns false (cancel: the model is
/// saved and the summary says so). A non-finite loss stops training with an Error naming the
/// iteration; the checkpoint on disk is then the last evaluated one.
Result<TrainSummary> runTrainLoop(const TrainLoopSetup& setup, const TrainStep& step,
                                  const TrainEvaluation& evaluate,
                                  const std::function<bool(const TrainProgress&)>& onProgress);

/// Where a run starts: fresh from the options, or, with `options.resume`, from that checkpoint's
/// sidecar (which must hold a `modelType` model): its iteration, total (`options.iterations` > 0
/// overrides it), seed, dataset, config and REINFORCE baseline.
struct RunStart {
    bool resumed = false;
    std::int64_t iteration = 0, total = 0;
    std::uint64_t seed = 1;
    std::string dataset;
    std::string configJson;  ///< resumed runs only
    double baseline = 0;
};
Result<RunStart> runStart(const TrainCommonOptions& options, const std::string& dataset, const std::string& modelType);

/// The loop's setup from the shared options: the sidecar names `modelType`, `configJson`, the
/// dataset and seed (a resumed run's), and the loop starts at `firstIteration` of `total`.
TrainLoopSetup loopSetup(const TrainCommonOptions& options, torch::nn::Module& net,
                         torch::optim::Optimizer& optimizer, const std::string& modelType,
                         const std::string& configJson, const std::string& dataset, std::uint64_t seed,
                         std::int64_t firstIteration, std::int64_t total);

/// An --init-from checkpoint must hold a `modelType` model of the same architecture: its config,
/// passed through `ourSettings` (which gives it our training mode and whatever else may differ,
/// or an error), must equal `configJson`. The error names the file and says what to give (`hint`).
Result<Unit> checkInitFrom(const std::string& path, const std::string& modelType, const std::string& configJson,
                           const std::function<Result<std::string>(const std::string&)>& ourSettings,
                           const std::string& hint);

/// Checks the options every trainer shares before any work: an output path whose folder exists,
/// positive finite batch and learning rate, finite non-negative minutes, and a budget.
Result<Unit> checkTrainBudget(const std::string& out, int batch, double lr, double minutes,
                              std::int64_t iterations, bool resuming);

}  // namespace saccade
