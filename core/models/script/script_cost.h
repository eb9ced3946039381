#pragma once
// What an imported model's forward costs (models/cost_profile.h), measured from its TorchScript
// graph: the whole forward timed, and the part of the graph that its attention (or the `features`
// the attention reads, when it returns them) depends on, cut out of the inlined graph and timed on
// its own: "up to the attention" and "after the attention" (the rest). Multiply-add FLOPs are
// counted from the shapes of every convolution and matrix product the interpreter dispatches
// (element-wise operations are not counted). What selection saved: what the model computed
// before its attention was known cannot depend on where it looks. Engine header.

#include <string>
#include <vector>

#include "common/result.h"
#include "models/cost_profile.h"

namespace saccade {

class CostRun;  // models/cost_stages.h

/// The cost of the import at `path` under its deterministic rule (one RuleCost). Errors, one line:
/// not a classifier under the forward contract (a captioner's attention is made word by word
/// inside its decoding loop), a dict whose attention is not one value of the returned expression.
Result<std::vector<RuleCost>> scriptImportCost(const std::string& path, CostRun& run);

}  // namespace saccade
