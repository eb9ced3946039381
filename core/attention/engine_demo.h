#pragma once
// A self-contained run of the attention engine without a trained model: a seeded random g x g
// feature grid, a query planted near one target cell per step, one scorer and one selection rule.
// It produces a real trace (distribution, choice, log-prob, entropy per step) for the headless
// demo and for checking the engine on a device. Plain types only.

#include <cstdint>
#include <string>

#include "common/result.h"
#include "trace/trace.h"

namespace saccade {

struct EngineDemoOptions {
    std::string scorer = "scaled-dot";  ///< additive, dot, general, scaled-dot
    std::string rule = "sample";        ///< see parseSelectionRule
    std::uint64_t seed = 1;
    int grid = 6;           ///< g: the image is g x g cells
    int cellPixels = 10;    ///< pixels per cell side in the trace's image coordinates
    int featureDim = 16;
    int steps = 4;
    double queryNoise = 0.5;  ///< std of the noise added to the planted query
    std::string device = "auto";
};

/// The trace of the run (model id "engine-demo/<scorer>", image id "synthetic-grid/<seed>"), with
/// the target cells as ground-truth boxes. Errors for unknown names, bad sizes or devices.
Result<Trace> runEngineDemo(const EngineDemoOptions& options);

}  // namespace saccade
