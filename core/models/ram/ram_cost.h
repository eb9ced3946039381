#pragma once
// The ram family's cost profile (ModelFamily::cost; models/cost_stages.h).
// Engine header: includes LibTorch.

#include <string>
#include <vector>

#include "common/result.h"
#include "models/cost_profile.h"

namespace saccade {

class CostRun;

/// Every rule's cost for the network `configJson` describes (a sidecar's config).
Result<std::vector<RuleCost>> ramCost(const std::string& configJson, CostRun& run);

}  // namespace saccade
