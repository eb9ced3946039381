#pragma once
// The rules of a deterministic model side by side on a dataset split: a model without sampled
// runs (a transformer, an imported model without forward_sampled) has no sampled-against-
// deterministic comparison, but it has several rules that read its attention differently (a
// transformer's attention, one head, rollout). Each image is traced under every rule; per rule:
//   accuracy   of the traces' answers, with its 95% Wilson interval (a transformer's answer is
//              the same under every rule; its maps are not);
//   mass       the attention mass of the last step's map in the object's box, and
//   pointing   whether its most attended cell lies on the object: both over the images with a
//              box, and not measured (unset, null in JSON) on a dataset without boxes;
// and per pair of rules the fraction of images whose last-step maps have the same most attended
// cell. The last step is the map read with the answer (a transformer's last layer; rollout
// through every layer). Shared by `saccade-cli compare --dataset` and the GUI's Dataset tab.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "data/dataset.h"
#include "metrics/accuracy.h"
#include "models/attention_model.h"

namespace saccade {

struct RuleFigures {
    std::string rule;
    RuleAccuracy accuracy;
    std::optional<double> massInBox, pointing;  ///< over boxed images; unset without boxes
};

struct RuleAgreement {
    std::string first, second;
    std::int64_t same = 0;  ///< images whose most attended cells are the same
    double fraction = 0;    ///< same / images
};

struct RuleComparison {
    std::string dataset, split, deterministicRule;
    std::int64_t images = 0, boxed = 0;
    int rows = 0, cols = 0;  ///< the grid the most attended cells are read on
    std::uint64_t seed = 0;
    std::vector<RuleFigures> rules;
    std::vector<RuleAgreement> agreement;  ///< every pair of rules, in rule order
    std::vector<int> labels;               ///< per image, the true class
    std::vector<std::vector<int>> answers, peaks;  ///< per rule, per image: the output, the most attended cell
    double seconds = 0;
};

/// The rules a model's rule menu offers (RuleMenu), a parameterised one at the lowest value of its
/// range (head -> head:0), the deterministic rule first.
std::vector<std::string> defaultRuleComparisonRules(const AttentionModel& model);

/// Traces the first `limit` images of `split` (0: all) under each of `rules` (one or more; with one
/// there is no pair to agree) with seed `seed`. Progress after each image; false cancels.
Result<RuleComparison> compareRulesOnDataset(AttentionModel& model, const Dataset& dataset, Split split,
                                             const std::vector<std::string>& rules, std::int64_t limit,
                                             std::uint64_t seed, const Progress& progress = {});

/// JSON (schema "saccade.compare-rules", version 1): null where a figure was not measured.
std::string ruleComparisonToJson(const RuleComparison& comparison, int indent = 2);

}  // namespace saccade
