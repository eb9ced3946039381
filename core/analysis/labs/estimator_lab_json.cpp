#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/labs/estimator_lab.h"
#include "io/json_fields.h"

namespace saccade {

namespace {

nlohmann::json estimatorJson(const EstimatorSummary& s) {
    nlohmann::json j;
    j["name"] = s.name;
    if (s.name.rfind("gumbel-st:", 0) == 0) j["temperature"] = s.temperature;
    j["baseline"] = numberOrNull(s.baseline);
    j["mean"] = s.mean;
    j["stderr"] = s.standardError;
    j["bias"] = s.bias;
    j["variance"] = s.variance;
    j["variance_total"] = s.totalVariance;
    j["bias_norm"] = s.biasNorm;
    j["max_abs_z"] = numberOrNull(s.maxAbsZ);
    j["variance_ratio_vs_reinforce"] = numberOrNull(s.varianceRatio);
    if (s.closedFormVariance.empty()) {
        j["closed_form_variance"] = nullptr;
        j["closed_form_variance_total"] = nullptr;
    } else {
        j["closed_form_variance"] = s.closedFormVariance;
        j["closed_form_variance_total"] = s.closedFormTotal;
    }
    nlohmann::json histograms = nlohmann::json::array();
    for (const auto& h : s.histograms)
        histograms.push_back({{"counts", h.counts}, {"below", h.below}, {"above", h.above}});
    j["histograms"] = histograms;
    return j;
}

}  // namespace

std::string estimatorLabToJson(const EstimatorLabResult& r, int indent) {
    nlohmann::json j;
    j["schema"] = "saccade.estimators";
    j["version"] = 1;
    j["probs"] = r.probs;
    j["logits"] = r.logits;
    j["rewards"] = r.rewards;
    j["expected_reward"] = r.expectedReward;
    j["exact_gradient"] = r.exact;
    j["optimal_baseline"] = r.optimalBaseline;
    j["samples"] = r.samples;
    j["seed"] = r.seed;
    j["baseline_decay"] = r.baselineDecay;
    j["bin_edges"] = r.binEdges;
    nlohmann::json estimators = nlohmann::json::array();
    for (const auto& s : r.estimators) estimators.push_back(estimatorJson(s));
    j["estimators"] = estimators;
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& t : r.training)
        runs.push_back(
            {{"estimator", t.name}, {"probs", t.probs}, {"expected_reward", t.expectedReward}});
    j["training"] = {{"steps", r.trainSteps},
                     {"learning_rate", r.learningRate},
                     {"samples_per_step", r.trainSamples},
                     {"runs", runs}};
    return j.dump(indent);
}

}  // namespace saccade
