#pragma once
// Benchmark of the patch-attention classifier: training images per second (one Adam step per
// batch, soft and hard modes) and single-image latency, for the dense variant (every cell's
// features computed before selection) and the select variant (only the chosen cells processed),
// and the latency of one full trace of the loaded model.

#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

struct PatchBenchOptions {
    std::string model;     ///< a checkpoint; its config sizes the network
    int batch = 128;
    int repeats = 9;
    std::string device = "auto";
};

/// Timings of one variant (dense or select) of the checkpoint's architecture.
struct PatchVariantTiming {
    std::string variant;
    double softStepMs = 0, hardStepMs = 0;  ///< median ms per training step (hard: no mixing)
    double softImagesPerSecond = 0, hardImagesPerSecond = 0;
    double forwardArgmaxMs = 0, forwardSoftMs = 0;  ///< median ms, one image, no grad
};

struct PatchBenchResult {
    int batch = 0, repeats = 0, threads = 0;
    std::string device;
    std::vector<PatchVariantTiming> variants;      ///< dense, then select
    double traceArgmaxMs = 0, traceSampleMs = 0;    ///< the loaded model's full trace, median ms
};

Result<PatchBenchResult> benchPatch(const PatchBenchOptions& options);
std::string patchBenchToJson(const PatchBenchResult& result, int indent = 2);

}  // namespace saccade
