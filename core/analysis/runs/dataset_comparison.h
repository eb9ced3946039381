#pragma once
// Every evaluation rule of one model on a dataset split, side by side: accuracy with its 95%
// interval, accuracy against K for ksample, the rule the model was trained under (so a figure
// under another rule says so), and the images on which sample and the deterministic rule
// (argmax, or the mean for RAM) disagree. Shared by `saccade-cli compare --dataset` and the GUI.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "models/attention_model.h"

namespace saccade {

/// One point of the accuracy-against-K curve (ksample:K).
struct KAccuracy {
    int k = 0;
    double accuracy = 0, low = 0, high = 0;
};

struct DatasetComparison {
    EvalReport report;
    std::string deterministicRule;  ///< argmax or mean
    std::string trainingRule;       ///< sample (hard, REINFORCE), soft or gumbel
    std::uint64_t seed = 0;         ///< image i's stochastic answers are its traces with evaluationSeed(seed, i)
    std::vector<KAccuracy> kCurve;  ///< every ksample rule evaluated, by K
    /// Positions in the split (0-based from its first image) where sample and the deterministic
    /// rule gave different outputs, in order.
    std::vector<std::int64_t> disagree;
    double disagreement = 0;        ///< disagree.size() / images
};

/// The per-image outputs of `rule` in `report` (std::out_of_range if it was not evaluated).
const std::vector<int>& rulePredictions(const EvalReport& report, const std::string& rule);

/// sample, the deterministic rule, ksample:1,2,5,10,20, and soft (patch) or random (RAM).
std::vector<std::string> defaultComparisonRules(const AttentionModel& model);


/// Whether `rule` is the training rule (ksample:K and topk:K count as their own rules).
bool isTrainingRule(const std::string& rule, const std::string& trainingRule);

/// Evaluates `rules` (sample and the deterministic rule are added when missing) on the first
/// `limit` images of `split` (0: all), or on `shard`'s slice of them. Progress and cancel as
/// AttentionModel::evaluate.
Result<DatasetComparison> compareOnDataset(AttentionModel& model, const Dataset& dataset, Split split,
                                           std::vector<std::string> rules, std::int64_t limit,
                                           std::uint64_t seed, const Progress& progress = {},
                                           const Shard& shard = {});

/// The accuracy-against-K curve of the ksample rules in `report`, by K.
std::vector<KAccuracy> kCurveOf(const EvalReport& report);

/// JSON (schema "saccade.compare-dataset", version 1); a sharded comparison adds what `merge` needs.
std::string datasetComparisonToJson(const DatasetComparison& comparison, int indent = 2);

}  // namespace saccade
