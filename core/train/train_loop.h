#pragma once
// The training loop every model family shares (patch classifier, RAM, captioner): data-parallel
// training over a c10d group when the settings ask for one (rank 0's parameters broadcast at the
// start, gradients averaged every step, rank 0 alone evaluating, logging and saving), the time or
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
#include "train/distributed_settings.h"
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
    /// Called after every step with the figures averaged over the ranks (the REINFORCE baseline
    /// follows the global batch's reward, so it stays equal on every rank).
    std::function<void(TrainProgress&)> afterStep;
    double clipGradNorm = 0;  ///< > 0: gradients clipped to this norm (after averaging over ranks)
    DistributedSettings distributed;
    std::string resumedFrom;  ///< every rank must resume from the same checkpoint
};

/// One step's gradients at `iteration` (0-based) with learning rate `lr`: zeroes the gradients,
/// computes the loss and calls backward() (skipped when the loss is not finite), and fills the
/// loss fields of `progress` (loss, crossEntropy, reinforce, reward, baseline, entropy,
/// temperature, trainAccuracy). The loop averages the gradients over the ranks, clips them and
/// steps the optimizer. Throws c10::Error on LibTorch failures (the loop reports them).
using TrainStep = std::function<void(std::int64_t iteration, double lr, TrainProgress& progress)>;
/// Evaluates the network (the loop switches it to eval mode and back): sets the eval fields of
/// `progress` and returns the extra columns of the metrics row.
using TrainEvaluation = std::function<nlohmann::json(TrainProgress& progress)>;

/// Runs the loop until the budget is spent or `onProgress` returns false on any rank (cancel: the
/// model is saved and the summary says so). A non-finite loss stops training with an Error naming
/// the iteration; the checkpoint on disk is then the last evaluated one. In a group, a rank that
/// is lost ends every other rank's loop with an Error naming it.
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
    /// Resumed runs: the schedules the checkpoint ran under before this run's (earlierSchedules).
    std::vector<std::pair<std::int64_t, std::int64_t>> earlierSchedules;
};
Result<RunStart> runStart(const TrainCommonOptions& options, const std::string& dataset, const std::string& modelType);

/// The schedules a run resumed from the checkpoint `resumed` ran under before its own, which
/// anneals to `total`: the checkpoint's earlier ones, and the checkpoint's own where `total` is
/// another (CheckpointInfo::earlierSchedules).
std::vector<std::pair<std::int64_t, std::int64_t>> earlierSchedules(const CheckpointInfo& resumed, std::int64_t total);

/// The runs that re-create a checkpoint trained under `schedules` ({until, total}, oldest first,
/// the last its own): `command --iterations T --out OUT`, then `saccade-cli TRAIN --resume OUT
/// --iterations T --out OUT` for each later one (`train`: "train patch"), each followed by
/// `suffix`, with ", stopped at iteration N" where one ended before its total.
std::string recreateRecipe(const std::string& command, const std::string& train, const std::string& out,
                           const std::string& suffix,
                           const std::vector<std::pair<std::int64_t, std::int64_t>>& schedules);

/// The loop's setup from the shared options: the sidecar names `modelType`, `configJson`, the
/// dataset and seed (a resumed run's) and the schedules before this one, and the loop starts at
/// the run start's iteration of its total.
TrainLoopSetup loopSetup(const TrainCommonOptions& options, torch::nn::Module& net,
                         torch::optim::Optimizer& optimizer, const std::string& modelType,
                         const std::string& configJson, const std::string& dataset, std::uint64_t seed,
                         const RunStart& start);

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

/// checkTrainBudget on the shared options, then this rank's slice of every global batch.
Result<BatchShard> checkTrainOptions(const TrainCommonOptions& options);

}  // namespace saccade
