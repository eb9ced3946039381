#pragma once
// PatchModel: a loaded patch-attention classifier behind a plain-type API, for the CLI and GUI.
// Traces and evaluations under any selection rule, on the device chosen at load time.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "data/dataset.h"
#include "models/attention_model.h"
#include "models/patch/patch_config.h"
#include "io/checkpoint.h"
#include "trace/trace.h"

namespace saccade {

class PatchModel : public AttentionModel {
public:
    ~PatchModel() override;
    /// Loads a checkpoint (weights + sidecar) onto `device` ("auto", "cpu", "cuda:N").
    /// Errors name the file and say what is wrong with it.
    static Result<std::shared_ptr<PatchModel>> load(const std::string& path,
                                                    const std::string& device = "auto");

    const PatchConfig& config() const;
    const CheckpointInfo& info() const override;
    std::string deviceName() const override;
    std::vector<std::string> classNames() const override;  ///< from the dataset in the sidecar
    int imageSize() const override;
    int channels() const override;
    int steps() const override;
    TrainingMode trainedMode() const override;
    std::string deterministicRule() const override { return "argmax"; }
    std::string summary() const override;
    RuleMenu ruleMenu() const override;
    std::string displayName() const override;
    CellGrid cellGrid() const override;
    /// Differentiable under argmax, soft and topk:K; the dense variant's encoder output is the
    /// feature grid (the select variant reads its values from windows, so it has none).
    GradientForward* gradientForward() override;

    /// One run on one image under `rule` (soft, sample, argmax, topk:K, gumbel:TAU) and seed.
    /// ksample:K runs K sampled paths at once and records, per step, the mean distribution, mean
    /// log-probability and entropy, every distinct chosen cell (most often chosen first) and the
    /// mean class probabilities: the output is the K-run average that `evaluate` scores.
    /// The image must match the model's size and channels. Not thread-safe: one caller at a time.
    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed,
                        const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override;

    /// Accuracy under each rule on the first `limit` images of `split` (0: all).
    /// Runs are sampled paths over the grid (cells); soft attention is included.
    Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                              const std::optional<GroundTruth>& truth, int kSample = 10,
                              const Progress& progress = {}) override;

    Result<EvalReport> evaluate(const Dataset& dataset, Split split,
                                const std::vector<std::string>& rules, std::int64_t limit,
                                std::uint64_t seed, const Progress& progress = {},
                                const Shard& shard = {}) override;

private:
    PatchModel();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};


}  // namespace saccade
