#include "models/attention_model.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attention/selection.h"
#include "models/patch_model.h"
#include "models/ram_model.h"

namespace saccade {

RuleAccuracy wilsonAccuracy(const std::string& rule, std::int64_t correct, std::int64_t n) {
    RuleAccuracy r{rule, correct, n};
    if (n == 0) return r;
    const double z = 1.96, p = double(correct) / n, z2n = z * z / n;
    const double centre = (p + z2n / 2) / (1 + z2n);
    const double half = z * std::sqrt(p * (1 - p) / n + z2n / (4.0 * n)) / (1 + z2n);
    r.accuracy = p;
    r.low = centre - half;
    r.high = centre + half;
    return r;
}

Result<std::vector<std::string>> parseEvalRules(const std::string& list) {
    std::vector<std::string> rules;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item == "mean" || item == "random") {
            rules.push_back(item);
            continue;
        }
        auto parsed = parseSelectionRule(item);
        if (!parsed) return Error{parsed.error() + " (evaluation rules: soft, sample, argmax, mean, random, ksample:K, gumbel:TAU)"};
        if (parsed->rule == SelectionRule::TopK)
            return Error{"topk is not an evaluation rule: the models read one place a step"};
        rules.push_back(selectionRuleSpec(*parsed));
    }
    if (rules.empty()) return Error{"no evaluation rules given"};
    return rules;
}

std::string evalReportToJson(const EvalReport& r, int indent) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& a : r.rules)
        rules.push_back({{"rule", a.rule}, {"accuracy", a.accuracy}, {"ci95", {a.low, a.high}},
                         {"correct", a.correct}, {"n", a.n}});
    return nlohmann::json{{"dataset", r.dataset}, {"split", r.split}, {"trained_mode", r.trainedMode},
                          {"rules", rules}, {"seconds", r.seconds}}
        .dump(indent);
}

Result<std::shared_ptr<AttentionModel>> loadAttentionModel(const std::string& path, const std::string& device) {
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    if (info->modelType == "patch") {
        auto m = PatchModel::load(path, device);
        if (!m) return Error{m.error()};
        return std::shared_ptr<AttentionModel>(*m);
    }
    if (info->modelType == "ram") {
        auto m = RamModel::load(path, device);
        if (!m) return Error{m.error()};
        return std::shared_ptr<AttentionModel>(*m);
    }
    return Error{"checkpoint '" + path + "' holds a '" + info->modelType +
                 "' model; this version knows patch and ram models"};
}

}  // namespace saccade
