// JSON of attribution over a sentence (schema "saccade.seq-attribution") and of the maps table
// over a test split (schema "saccade.seq-map-faithfulness").

#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "analysis/attribution/seq_attribution.h"
#include "analysis/attribution/sanity_json.h"
#include "analysis/attribution/seq_map_comparison.h"

namespace saccade {

namespace {

template <typename T>
nlohmann::json seqOrNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Rows rounded to 6 significant digits to keep the file readable.
nlohmann::json seqRows(const std::vector<std::vector<double>>& rows) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : rows) {
        nlohmann::json r = nlohmann::json::array();
        for (double v : row) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.6g", v);
            r.push_back(std::strtod(buffer, nullptr));
        }
        out.push_back(r);
    }
    return out;
}

}  // namespace

std::string seqAttributionToJson(const SeqAttribution& a, int indent) {
    nlohmann::json j{{"schema", "saccade.seq-attribution"},
                     {"version", 1},
                     {"method", a.method},
                     {"rule", a.rule},
                     {"output", a.method == "occlusion" ? "probability"
                                : a.method == "attention" || a.method == "rollout" ? "attention"
                                                                                   : "logit"},
                     {"baseline", a.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.baseline)},
                     {"source", a.source},
                     {"target", a.target},
                     {"map", seqRows(a.rows)},
                     {"values", seqRows(a.signedRows)},
                     {"pointed", a.pointed},
                     {"difference", a.difference.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.difference)},
                     {"attribution_sum", a.attributionSum.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.attributionSum)},
                     {"completeness_error", seqOrNull(a.completenessError)},
                     {"forwards", a.forwards},
                     {"seconds", a.seconds}};
    return j.dump(indent);
}

std::string seqMapComparisonToJson(const SeqMapComparisonReport& r, int indent) {
    nlohmann::json maps = nlohmann::json::array();
    for (const auto& m : r.maps)
        maps.push_back({{"method", m.method},
                        {"aer", seqOrNull(m.aer)},
                        {"deletion_fall", m.deletionFall},
                        {"completeness_error", seqOrNull(m.completenessError)},
                        {"seconds", m.seconds},
                        {"sanity", sanityCurveJson(m.sanity)}});
    nlohmann::json omitted = nlohmann::json::array();
    for (const auto& [method, reason] : r.omitted) omitted.push_back({{"method", method}, {"reason", reason}});
    nlohmann::json j{{"schema", "saccade.seq-map-faithfulness"},
                     {"version", 1},
                     {"model", r.model},
                     {"task", r.task},
                     {"rule", r.rule},
                     {"sentences", r.sentences},
                     {"tokens", r.tokens},
                     {"aer_sentences", r.aerSentences},
                     {"random_fall", r.randomFall},
                     {"sanity_sentences", r.sanitySentences},
                     {"sanity_threshold", r.sanityThreshold},
                     {"seed", r.seed},
                     {"maps", maps},
                     {"omitted", omitted},
                     {"seconds", r.seconds}};
    return j.dump(indent);
}

}  // namespace saccade
