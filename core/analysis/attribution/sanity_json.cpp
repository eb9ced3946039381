#include "analysis/attribution/sanity_json.h"

#include <nlohmann/json.hpp>

namespace saccade {

namespace {

nlohmann::json curveOrNull(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json sanityCurveJson(const std::optional<SanityCurve>& s) {
    if (!s) return nullptr;
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : s->steps)
        steps.push_back(
            {{"layer", step.layer}, {"spearman", step.spearman}, {"pearson", step.pearson}});
    return {{"images", s->images},
            {"steps", steps},
            {"final_spearman", curveOrNull(s->finalSpearman)},
            {"final_pearson", curveOrNull(s->finalPearson)},
            {"flagged", s->finalSpearman ? nlohmann::json(s->flagged) : nlohmann::json(nullptr)}};
}

}  // namespace saccade
