// JSON of the comparison of maps (analysis/map_comparison.h); documented in docs/schemas.md.

#include <nlohmann/json.hpp>

#include "analysis/attribution/faithfulness.h"
#include "analysis/attribution/map_comparison.h"
#include "analysis/attribution/sanity_json.h"

namespace saccade {

namespace {

template <typename T>
nlohmann::json mapOrNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string mapComparisonToJson(const MapComparisonReport& r, int indent) {
    nlohmann::json maps = nlohmann::json::array();
    for (const auto& m : r.maps)
        maps.push_back({{"method", m.method},
                        {"images", m.images},
                        {"mass_in_box", mapOrNull(m.massInBox)},
                        {"pointing", mapOrNull(m.pointing)},
                        {"deletion", m.deletion},
                        {"insertion", m.insertion},
                        {"deletion_auc", m.images ? nlohmann::json(m.deletionAuc) : nlohmann::json(nullptr)},
                        {"insertion_auc", m.images ? nlohmann::json(m.insertionAuc) : nlohmann::json(nullptr)},
                        {"sanity", sanityCurveJson(m.sanity)}});
    nlohmann::json omitted = nlohmann::json::array();
    for (const auto& [method, reason] : r.omitted) omitted.push_back({{"method", method}, {"reason", reason}});
    nlohmann::json j{{"schema", "saccade.map-faithfulness"},
                     {"version", 1},
                     {"caveat", kAttentionCaveat},
                     {"dataset", r.dataset},
                     {"rule", r.rule},
                     {"images", r.images},
                     {"boxed_images", r.boxed},
                     {"grid", {r.rows, r.cols}},
                     {"fractions", r.fractions},
                     {"uniform_mass", mapOrNull(r.uniformMass)},
                     {"sanity_images", r.sanityImages},
                     {"sanity_threshold", r.sanityThreshold},
                     {"sanity_note", r.sanityNote.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sanityNote)},
                     {"seed", r.seed},
                     {"maps", maps},
                     {"omitted", omitted},
                     {"seconds", r.seconds}};
    return j.dump(indent);
}

}  // namespace saccade
