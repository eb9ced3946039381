#include "analysis/runs/dataset_comparison.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "trace/rule_kind.h"

namespace saccade {

const std::vector<int>& rulePredictions(const EvalReport& report, const std::string& rule) {
    for (size_t i = 0; i < report.rules.size() && i < report.predictions.size(); ++i)
        if (report.rules[i].rule == rule) return report.predictions[i];
    throw std::out_of_range("the rule '" + rule + "' was not evaluated");
}

std::vector<std::string> defaultComparisonRules(const AttentionModel& model) {
    if (traitsOf(model.outputKind()).wordSteps) {
        auto rules = model.evaluationRules();
        rules.insert(rules.begin(), "sample");
        rules.erase(std::find(rules.begin() + 1, rules.end(), "sample"));
        return rules;
    }
    if (!traitsOf(model.trainedMode()).recorded)  // an import: no soft rule; evaluate says when it cannot sample
        return {"sample", model.deterministicRule(), "ksample:1", "ksample:2", "ksample:5", "ksample:10"};
    const bool ram = model.trainedMode() == TrainingMode::Reinforce;
    return {"sample", model.deterministicRule(), "ksample:1", "ksample:2", "ksample:5", "ksample:10",
            "ksample:20", ram ? "random" : "soft"};
}

bool isTrainingRule(const std::string& rule, const std::string& trainingRule) {
    // gumbel:TAU is the gumbel rule at any temperature; sample is not ksample.
    return rule == trainingRule || rule.rfind(trainingRule + ":", 0) == 0;
}

Result<DatasetComparison> compareOnDataset(AttentionModel& model, const Dataset& dataset, Split split,
                                           std::vector<std::string> rules, std::int64_t limit,
                                           std::uint64_t seed, const Progress& progress, const Shard& shard) {
    DatasetComparison c;
    c.deterministicRule = model.deterministicRule();
    c.trainingRule = traitsOf(model.trainedMode()).trainingRule;
    c.seed = seed;
    for (const std::string& needed : {std::string("sample"), c.deterministicRule})  // the disagreement needs both
        if (std::find(rules.begin(), rules.end(), needed) == rules.end()) rules.push_back(needed);
    auto report = model.evaluate(dataset, split, rules, limit, seed, progress, shard);
    if (!report) return Error{report.error()};
    c.report = std::move(report).value();
    const auto& r = c.report;
    const auto& sample = rulePredictions(r, "sample");
    const auto& deterministic = rulePredictions(r, c.deterministicRule);
    for (size_t i = 0; i < sample.size(); ++i)
        if (sample[i] != deterministic[i]) c.disagree.push_back(r.begin + std::int64_t(i));
    c.disagreement = sample.empty() ? 0.0 : double(c.disagree.size()) / double(sample.size());
    c.kCurve = kCurveOf(r);
    return c;
}

std::vector<KAccuracy> kCurveOf(const EvalReport& r) {
    std::vector<KAccuracy> curve;
    for (const auto& a : r.rules)
        if (isRule(a.rule, RuleKind::KSample) && a.rule.size() > 8) curve.push_back({std::stoi(a.rule.substr(8)), a.accuracy, a.low, a.high});
    std::sort(curve.begin(), curve.end(), [](const KAccuracy& a, const KAccuracy& b) { return a.k < b.k; });
    return curve;
}

std::string datasetComparisonToJson(const DatasetComparison& c, int indent) {
    auto j = nlohmann::json::parse(evalReportToJson(c.report, -1));
    j["schema"] = "saccade.compare-dataset";
    j["version"] = 1;
    j["deterministic_rule"] = c.deterministicRule;
    j["seed"] = c.seed;
    j["seeds"] = "image i under a stochastic rule: trace --rule RULE --seed " + std::to_string(c.seed) + "+i";
    j["training_rule"] = c.trainingRule;
    for (auto& rule : j["rules"]) rule["training_rule"] = isTrainingRule(rule["rule"].get<std::string>(), c.trainingRule);
    auto curve = nlohmann::json::array();
    for (const auto& k : c.kCurve) curve.push_back({{"k", k.k}, {"accuracy", k.accuracy}, {"low", k.low}, {"high", k.high}});
    j["accuracy_vs_k"] = curve;
    j["sample_vs_deterministic"] = {{"disagree", c.disagree.size()}, {"fraction", c.disagreement},
                                    {"images", c.disagree}};
    if (j.contains("shard")) j["shard"]["command"] = "compare";
    return j.dump(indent);
}

}  // namespace saccade
