#pragma once
// The JSON of a sanity check's curve (analysis/sanity_check.h), shared by the image and the
// sequence maps tables; documented in docs/schemas.md ("sanity").

#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "analysis/attribution/sanity_check.h"

namespace saccade {

/// {images, steps: [{layer, spearman, pearson}], final_spearman, final_pearson, flagged}; null
/// when the check did not run; final figures and flagged null when nothing was counted.
nlohmann::json sanityCurveJson(const std::optional<SanityCurve>& curve);

}  // namespace saccade
