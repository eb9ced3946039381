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
#include "models/patch_config.h"
#include "train/checkpoint.h"
#include "trace/trace.h"

namespace saccade {

/// Accuracy of one evaluation rule on n images, with a 95% Wilson interval.
struct RuleAccuracy {
    std::string rule;
    std::int64_t correct = 0, n = 0;
    double accuracy = 0, low = 0, high = 0;
};

struct EvalReport {
    std::string dataset, split, trainedMode;
    std::vector<RuleAccuracy> rules;
    double seconds = 0;
};

/// Evaluation rules: soft, sample, argmax (single runs), ksample:K (K sampled runs with the class
/// probabilities averaged: a different procedure from one run). "Soft" on a model trained hard is
/// reported, but it is a different procedure from the one it was trained with.
Result<std::vector<std::string>> parseEvalRules(const std::string& commaList);

class PatchModel {
public:
    ~PatchModel();
    /// Loads a checkpoint (weights + sidecar) onto `device` ("auto", "cpu", "cuda:N").
    /// Errors name the file and say what is wrong with it.
    static Result<std::shared_ptr<PatchModel>> load(const std::string& path,
                                                    const std::string& device = "auto");

    const PatchConfig& config() const;
    const CheckpointInfo& info() const;
    std::string deviceName() const;
    std::vector<std::string> classNames() const;  ///< from the dataset in the sidecar

    /// One run on one image under `rule` (soft, sample, argmax, topk:K, gumbel:TAU) and seed.
    /// ksample:K runs K sampled paths at once and records, per step, the mean distribution, mean
    /// log-probability and entropy, every distinct chosen cell (most often chosen first) and the
    /// mean class probabilities: the output is the K-run average that `evaluate` scores.
    /// The image must match the model's size and channels. Not thread-safe: one caller at a time.
    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed,
                        const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt);

    /// Accuracy under each rule on the first `limit` images of `split` (0: all).
    Result<EvalReport> evaluate(const Dataset& dataset, Split split,
                                const std::vector<std::string>& rules, std::int64_t limit,
                                std::uint64_t seed, const Progress& progress = {});

private:
    PatchModel();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

std::string evalReportToJson(const EvalReport& report, int indent = 2);

}  // namespace saccade
