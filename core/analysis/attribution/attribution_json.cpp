#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "analysis/attribution/attribution.h"

namespace saccade {

namespace {

template <typename T>
nlohmann::json attributionOrNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Rows of a row-major map, each value rounded to 6 significant digits to keep the file readable.
nlohmann::json attributionRows(const std::vector<double>& values, int rows, int cols) {
    nlohmann::json out = nlohmann::json::array();
    for (int r = 0; r < rows; ++r) {
        nlohmann::json row = nlohmann::json::array();
        for (int c = 0; c < cols; ++c) {
            const double v = values[size_t(r) * size_t(cols) + size_t(c)];
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.6g", v);
            row.push_back(std::strtod(buffer, nullptr));
        }
        out.push_back(row);
    }
    return out;
}

}  // namespace

std::string attributionToJson(const AttributionMap& m, bool pixels, int indent) {
    nlohmann::json j{{"schema", "saccade.attribution"},
                     {"version", 1},
                     {"method", m.method},
                     {"rule", m.rule},
                     {"output", m.method == "occlusion" ? "probability" : "logit"},
                     {"target", m.target},
                     {"predicted", m.predicted},
                     {"baseline", m.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.baseline)},
                     {"pixel_grid", {{"width", m.width}, {"height", m.height}}},
                     {"grid", {{"rows", m.rows}, {"cols", m.cols}}},
                     {"map", attributionRows(m.cells, m.rows, m.cols)},
                     {"f_input", attributionOrNull(m.fInput)},
                     {"f_baseline", attributionOrNull(m.fBaseline)},
                     {"attribution_sum", attributionOrNull(m.attributionSum)},
                     {"completeness_error", attributionOrNull(m.completenessError)},
                     {"steps", attributionOrNull(m.steps)},
                     {"tolerance", attributionOrNull(m.tolerance)},
                     {"converged", attributionOrNull(m.converged)},
                     {"convergence", m.convergence.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.convergence)},
                     {"mass_in_box", attributionOrNull(m.massInBox)},
                     {"mass_in_box_pixels", attributionOrNull(m.massInBoxPixels)},
                     {"pointing", attributionOrNull(m.pointing)},
                     {"pointing_pixels", attributionOrNull(m.pointingPixels)},
                     {"box_area", attributionOrNull(m.boxArea)},
                     {"forwards", m.forwards},
                     {"seconds", m.seconds}};
    if (m.step)  // a model that outputs words: the word attributed, and the attention at its step
        j["word"] = {{"step", *m.step},
                     {"word", m.word},
                     {"caption", m.caption},
                     {"object", m.object >= 0 ? nlohmann::json(m.object) : nlohmann::json(nullptr)},
                     {"attention_mass_in_box", attributionOrNull(m.attentionMassInBox)},
                     {"attention_pointing", attributionOrNull(m.attentionPointing)}};
    if (pixels) j["pixels"] = attributionRows(m.magnitude, m.height, m.width);
    return j.dump(indent);
}

}  // namespace saccade
