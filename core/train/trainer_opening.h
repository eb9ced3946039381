#pragma once
// The opening every trainer shares, before its own step and evaluation: the options checked (the
// shared ones, then the family's own, each with its own words), the device and where the run
// starts; a resumed run's saved config; the starting weights (--resume with the optimiser's
// state, or --init-from through checkInitFrom); this rank's rows of each global batch; the
// evaluation batch; and the REINFORCE moving-average baseline wired into the loop.
// Engine header: includes LibTorch.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include "attention/reinforce.h"
#include "common/result.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "train/distributed_settings.h"
#include "train/train_loop.h"
#include "train/train_options.h"
#include "train/train_order.h"

namespace saccade {

/// One of a family's own option checks: `ok`, or else `error` is the run's answer.
struct OptionCheck {
    bool ok = true;
    const char* error = "";
};

/// True when every figure is finite and >= 0.
bool finiteNonNegative(std::initializer_list<double> figures);

/// Where a checked run stands before its network is built.
struct TrainerOpening {
    BatchShard shard;                      ///< this rank's slice of every global batch
    torch::Device device{torch::kCPU};
    RunStart start;                        ///< fresh or resumed (`dataset`: the task for seq)
};

/// checkTrainOptions, then the family's `checks` in order (the first that fails is the error),
/// then the training device (trainingDeviceSpec) and runStart(options, dataset, modelType).
Result<TrainerOpening> openTrainer(const TrainCommonOptions& options, const std::string& dataset,
                                   const std::string& modelType, std::initializer_list<OptionCheck> checks);

/// The run's dataset (`start.dataset`, under the run's seed) as a classifier trains on it.
struct ClassificationData {
    std::shared_ptr<const Dataset> dataset;
    int channels = 1, width = 0, height = 0, classes = 0;
};

/// Opens it; errors: it cannot be opened, or it has fewer than 2 classes ("dataset 'X' has no
/// classes: " + `classifier` + " needs a classification dataset").
Result<ClassificationData> openClassificationData(const RunStart& start, const std::string& classifier);

/// The config a run trains: `fresh` (the options'), or a resumed run's saved one read by the
/// family's `fromJson` (Result<Config>(const std::string&)); its error names the checkpoint.
template <class Config, class FromJson>
Result<Config> startingConfig(const TrainCommonOptions& options, const RunStart& start, const Config& fresh,
                              FromJson fromJson) {
    if (!start.resumed) return fresh;
    auto saved = fromJson(start.configJson);
    if (!saved) return Error{"cannot resume from '" + options.resume + "': " + saved.error()};
    return Config(*saved);
}

/// What --init-from needs to check a checkpoint before its weights are taken (see checkInitFrom).
struct InitFromCheck {
    std::string path;        ///< the --init-from checkpoint; empty: none
    std::string modelType, configJson;
    std::function<Result<std::string>(const std::string&)> ourSettings;
    std::string hint;
};

/// The starting weights: with --resume the checkpoint's weights and `optimizer`'s state; else,
/// when `initFrom` names a checkpoint, checkInitFrom and then its weights alone (a fresh
/// optimiser). Nothing to load: the freshly seeded weights stay.
Result<Unit> loadStartingWeights(const TrainCommonOptions& options, torch::nn::Module& net,
                                 torch::optim::Optimizer& optimizer, const torch::Device& device,
                                 const InitFromCheck* initFrom = nullptr);

/// How a run's examples follow one another over the passes of its training order.
enum class Passes {
    Repeat,  ///< every pass sees the same examples, in a new order
    Fresh,   ///< position p takes order.at(p) + p / n * n: new examples every pass (generated data)
};

/// This rank's example indices of global batch `iteration`: positions iteration * batch +
/// shard.offset + b of `order`, b < shard.size.
std::vector<std::int64_t> shardIndices(TrainingOrder& order, std::int64_t iteration, int batch,
                                       const BatchShard& shard, Passes passes = Passes::Repeat);

/// The first min(count, test size) test examples on `device`: the batch, their count and, with
/// `keepSamples`, the samples themselves (captions and boxes for the captioner).
struct EvaluationBatch {
    Batch batch;
    std::int64_t size = 0;
    std::vector<Sample> samples;
};
EvaluationBatch evaluationBatch(const Dataset& dataset, std::int64_t count, const torch::Device& device,
                                bool keepSamples = false);

/// The moving-average REINFORCE baseline (decay 0.9) of the patch classifier, captioner and
/// sequence model: resumed from the run start's saved value, updated after every step from the
/// global batch's reward while training is `hard`, saved in the sidecar and shown in progress.
/// Must outlive the loop it is wired into; not copyable.
class ReinforceBaseline {
public:
    explicit ReinforceBaseline(const RunStart& start);
    ReinforceBaseline(const ReinforceBaseline&) = delete;
    ReinforceBaseline& operator=(const ReinforceBaseline&) = delete;
    /// The baseline before this step's reward.
    double value() const { return m_average.value(); }
    /// Sets setup.baseline and setup.afterStep.
    void wire(TrainLoopSetup& setup, bool hard);

private:
    MovingAverageBaseline m_average{0.9};
    double m_saved = 0;  ///< what the sidecar saves: updated only by hard steps
};

}  // namespace saccade
