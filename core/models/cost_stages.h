#pragma once
// What a family's cost profile (ModelFamily::cost) works with: the options, the device, the clock
// its network's stages lap, and the median time of each stage over the repeats; FLOPs counted from
// a Sequential's layer shapes; a rule's cost from its stages. See models/cost_profile.h.
// Engine header: includes LibTorch.

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/modules/container/sequential.h>
#include <torch/types.h>

#include "common/progress.h"
#include "common/stage_clock.h"
#include "models/cost_profile.h"

namespace saccade {

/// A cancelled measurement (the progress callback said stop): profileCost turns it into an Error.
struct CostCancelled {};

class CostRun {
public:
    CostRun(const CostOptions& options, const torch::Device& device, StageClock& clock, const Progress& progress,
            int timedCalls)
        : options(options), device(device), clock(clock), m_progress(progress), m_total(timedCalls) {}

    /// Median seconds per stage over options.repeats timed calls of `run` (after one warm-up); each
    /// timed call is a step of the progress, and a stop throws CostCancelled.
    std::vector<std::pair<std::string, double>> medianStages(const std::function<void()>& run);

    const CostOptions& options;
    const torch::Device device;
    StageClock& clock;

private:
    const Progress& m_progress;
    int m_total = 1, m_done = 0;
};

/// FLOPs of a Sequential on one [C, H, W] input: each layer's output shape comes from a forward
/// pass of zeros; convolutions and linear layers are counted from their weight shapes.
double sequentialFlops(torch::nn::Sequential& net, int channels, int height, int width, const torch::Device& device);

/// A rule's cost from its stages' seconds (for `batch` images) and FLOPs (per image).
RuleCost makeRuleCost(const std::string& variant, const std::string& rule,
                      const std::vector<std::pair<std::string, double>>& seconds, int batch,
                      const std::map<std::string, double>& flops);

}  // namespace saccade
