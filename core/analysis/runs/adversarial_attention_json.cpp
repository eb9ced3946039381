#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "analysis/runs/adversarial_attention.h"

namespace saccade {

namespace {

nlohmann::json adversarialOrNull(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// 6 significant digits keep the maps readable.
double adversarialRounded(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", v);
    return std::strtod(buffer, nullptr);
}

nlohmann::json adversarialList(const std::vector<double>& values) {
    nlohmann::json out = nlohmann::json::array();
    for (double v : values) out.push_back(adversarialRounded(v));
    return out;
}

// Per step, the rows x cols grid of the step's distribution.
nlohmann::json adversarialGrids(const std::vector<std::vector<double>>& steps, int rows, int cols) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& cells : steps) {
        nlohmann::json grid = nlohmann::json::array();
        for (int r = 0; r < rows; ++r) {
            nlohmann::json row = nlohmann::json::array();
            for (int c = 0; c < cols; ++c) row.push_back(adversarialRounded(cells[size_t(r) * size_t(cols) + size_t(c)]));
            grid.push_back(row);
        }
        out.push_back(grid);
    }
    return out;
}

nlohmann::json adversarialImageJson(const AdversarialImage& i, const AdversarialReport& r, bool maps) {
    nlohmann::json j{{"id", i.id},
                     {"label", i.label ? nlohmann::json(*i.label) : nlohmann::json(nullptr)},
                     {"js", i.js},
                     {"js_max", r.jsMax},
                     {"js_steps", adversarialList(i.jsSteps)},
                     {"tv", i.tv},
                     {"predicted", i.predicted},
                     {"adversarial_predicted", i.adversarialPredicted},
                     {"prediction_changed", i.predictionChanged}};
    if (maps) {
        j["output_probs"] = adversarialList(i.outputProbs);
        j["adversarial_probs"] = adversarialList(i.adversarialProbs);
        j["learned"] = adversarialGrids(i.learned, r.rows, r.cols);
        j["adversarial"] = adversarialGrids(i.adversarial, r.rows, r.cols);
    }
    return j;
}

}  // namespace

std::string adversarialToJson(const AdversarialReport& r, bool maps, int indent) {
    const auto& o = r.options;
    nlohmann::json images = nlohmann::json::array();
    for (const auto& i : r.images) images.push_back(adversarialImageJson(i, r, maps));
    nlohmann::json j{
        {"schema", "saccade.adversarial_attention"},
        {"version", 1},
        {"model", r.model},
        {"rule", r.rule},
        {"dataset", r.dataset.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.dataset)},
        {"epsilon", o.epsilon},
        {"steps", o.steps},
        {"restarts", o.restarts},
        {"seed", o.seed},
        {"learning_rate", o.learningRate},
        {"penalty", o.penalty},
        {"start_noise", o.initNoise},
        {"grid", {{"rows", r.rows}, {"cols", r.cols}}},
        {"attention_steps", r.attentionSteps},
        {"js_max", r.jsMax},
        {"summary",
         {{"images", r.images.size()},
          {"js_median", adversarialOrNull(r.jsMedian)},
          {"js_mean", adversarialOrNull(r.jsMean)},
          {"share_js_above_half_max", adversarialOrNull(r.shareAboveHalf)},
          {"tv_mean", adversarialOrNull(r.tvMean)},
          {"tv_max", adversarialOrNull(r.tvMax)},
          {"predictions_changed", r.predictionsChanged}}},
        {"images", images},
        {"seconds", r.seconds}};
    return j.dump(indent);
}

}  // namespace saccade
