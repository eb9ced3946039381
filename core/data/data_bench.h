#pragma once
// Benchmark: is sample generation ever the bottleneck of training? Times batched generation of
// a dataset against one training step (forward, backward, Adam) of a small convolutional
// classifier on batches of the same shape: a stand-in for the models' steps until they land.

#include <cstdint>
#include <string>

#include "common/result.h"
#include "data/dataset.h"

namespace saccade {

struct DataBenchOptions {
    std::string dataset = "cluttered-fashion100";
    int batch = 128;
    int repeats = 7;
    DatasetOptions data;
};

struct DataBenchResult {
    std::string dataset;
    int batch = 0, repeats = 0, threads = 0;
    double generateMs = 0;    ///< median ms to generate one batch (makeBatch, CPU)
    double trainStepMs = 0;   ///< median ms of one training step of the stand-in model
    double samplesPerSecond = 0;       ///< generation
    double trainSamplesPerSecond = 0;  ///< consumption by the training step
    double ratio = 0;                  ///< generation speed / consumption speed
    std::string trainModel;            ///< what the training step ran
};

Result<DataBenchResult> benchDataGeneration(const DataBenchOptions& options);
std::string dataBenchToJson(const DataBenchResult& result, int indent = 2);

}  // namespace saccade
