#pragma once
// Benchmark of the patch-attention classifier: training images per second (one Adam step per
// batch, soft and hard modes) and the latency of one single-image trace (median).

#include <string>

#include "common/result.h"

namespace saccade {

struct PatchBenchOptions {
    std::string model;     ///< a checkpoint; its config sizes the network
    int batch = 128;
    int repeats = 9;
    std::string device = "auto";
};

struct PatchBenchResult {
    int batch = 0, repeats = 0, threads = 0;
    std::string device;
    double softStepMs = 0, hardStepMs = 0;          ///< median ms per training step
    double softImagesPerSecond = 0, hardImagesPerSecond = 0;
    double traceArgmaxMs = 0, traceSampleMs = 0;    ///< median ms per single-image trace
};

Result<PatchBenchResult> benchPatch(const PatchBenchOptions& options);
std::string patchBenchToJson(const PatchBenchResult& result, int indent = 2);

}  // namespace saccade
