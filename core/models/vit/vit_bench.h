#pragma once
// Benchmark of the native Vision Transformer at the sizes of scripts/vit_reference.py (60x60
// inputs, 6x6 patches + CLS, width 64, 4 layers of 4 heads, MLP 128, 10 classes, batch 64):
// training images/s (one AdamW step of cross-entropy on random images, made outside the timed
// region), and, with a model file, the time to open it and draw its first trace.

#include <string>

#include "common/result.h"
#include "models/vit/vit_config.h"

namespace saccade {

struct VitBenchOptions {
    VitConfig model;
    int batch = 64;
    int repeats = 9;
    std::string device = "auto";
    std::string openModel;  ///< also time opening this model (any kind) and its first trace
};

struct VitBenchResult {
    int threads = 0;
    std::string device;
    double trainStepMs = 0, trainImagesPerSecond = 0;
    double traceMs = 0;          ///< one image's trace with every layer's attention kept
    double openMs = 0, firstTraceMs = 0;  ///< with openModel
};

Result<VitBenchResult> benchVit(const VitBenchOptions& options);
std::string vitBenchToJson(const VitBenchOptions& options, const VitBenchResult& result, int indent = 2);

}  // namespace saccade
