#pragma once
// What selection really costs: for a checkpoint's architecture, per stage of the forward pass
// (encoder over all cells, scoring, selection, the network on the selected part, recurrent state
// and classifier; for a RAM the glimpse sensor, glimpse network, core, policy and classifier),
// the measured time per image and the multiply-add FLOPs counted from the layer shapes, for
// each rule. A patch model is profiled in both variants of its architecture: dense (every cell's
// features computed before selection, so selection saves nothing) and select (a cheap pass
// scores the cells, and the patch network runs on the chosen window only). Costs do not depend
// on the weights, so the variant the checkpoint was not trained as runs with random weights.

#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"

namespace saccade {

struct StageCost {
    std::string stage;
    double msPerImage = 0;
    double mflopsPerImage = 0;  ///< 2 x multiply-adds, in millions
};

struct RuleCost {
    std::string variant, rule;
    std::vector<StageCost> stages;  ///< in forward order
    double msPerImage = 0, mflopsPerImage = 0;
    /// True when every cell's features were computed before the first selection.
    bool allFeaturesFirst = false;
    std::string note;  ///< what selection saved, in words
};

struct CostOptions {
    std::string model;  ///< a checkpoint; its config sizes the network
    int batch = 64;
    int repeats = 7;
    std::string device = "auto";
};

struct CostReport {
    std::string modelType, device;
    int batch = 0, threads = 0;
    std::vector<RuleCost> rules;
};

/// Multiply-add FLOPs (2 per multiply-add) of a linear layer on one row, and of a convolution
/// with `outHeight` x `outWidth` outputs.
inline double linearFlops(double in, double out) { return 2.0 * in * out; }
inline double convFlops(double inChannels, double outChannels, double kernelH, double kernelW, double outHeight,
                        double outWidth) {
    return 2.0 * inChannels * outChannels * kernelH * kernelW * outHeight * outWidth;
}

/// Times every stage under every rule (progress after each timed call; false cancels).
Result<CostReport> profileCost(const CostOptions& options, const Progress& progress = {});
std::string costReportToJson(const CostReport& report, int indent = 2);

}  // namespace saccade
