#pragma once
// The trace: one run of one model on one image under one selection rule and seed. Everything
// downstream (GUI overlays, charts, exports, the CLI, tests) reads traces. Plain types only.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/box.h"
#include "common/result.h"

namespace saccade {

/// Version of the JSON schema "saccade.trace"; readers refuse newer versions.
constexpr int kTraceSchemaVersion = 1;

/// Attention over a rows x cols grid of cells covering the image; probs are row-major.
struct GridDistribution {
    int rows = 0, cols = 0;
    std::vector<float> probs;
};

/// A Gaussian location policy (continuous glimpses), in image pixels.
struct GaussianPolicy {
    double meanX = 0, meanY = 0, stdX = 0, stdY = 0;
};

struct GlimpseBox {
    int scale = 0;  ///< 0 = the finest
    Box box;
};

struct TraceStep {
    std::optional<GridDistribution> grid;
    std::optional<GaussianPolicy> gaussian;
    /// Flat grid indices; empty for soft. ksample: one per draw (a cell drawn n times appears n
    /// times, most often drawn first); topk: k distinct cells.
    std::vector<int> chosenCells;
    std::optional<std::array<double, 2>> chosenPoint;   ///< continuous location, pixels
    std::vector<GlimpseBox> glimpses;
    double logProb = 0;   ///< log-probability of the choice (see Selection::logProb)
    double entropy = 0;   ///< of the step's distribution, nats
    std::vector<float> outputProbs;  ///< per-step class probabilities, if the model emits them
    std::string token;               ///< per-step word, for captioners (outputProbs: over the vocabulary)
    int wordObject = -1;             ///< captioners: the ground-truth box (index) the word names, or -1
};

struct TraceOutput {
    int label = -1;
    std::vector<float> probs;
    std::string text;
};

struct GroundTruth {
    int label = -1;
    std::vector<Box> boxes;
    std::vector<std::string> names;       ///< per box, e.g. "small red circle" (scenes); may be empty
    std::vector<std::string> references;  ///< captioners: every valid caption of the image
};

struct Trace {
    int schemaVersion = kTraceSchemaVersion;
    std::string modelId;
    std::string imageId;
    std::string rule;  ///< canonical rule spelling, e.g. "sample" or "ksample:10"
    std::uint64_t seed = 0;
    std::string device;
    int imageWidth = 0, imageHeight = 0;
    std::vector<std::string> classNames;
    std::vector<TraceStep> steps;
    TraceOutput output;
    std::optional<GroundTruth> groundTruth;
};

/// Shannon entropy (nats) of a distribution's probabilities; zero entries add nothing.
double entropyNats(const std::vector<float>& probs);

/// The grid cell a step looked at: its chosen cell, else (soft attention) its most attended one;
/// -1 for a step without a grid.
int attendedCell(const TraceStep& step);

/// Checks internal consistency (grid sizes, indices in range, probabilities finite and summing
/// to 1 within 1e-3). The error names the step and field.
Result<Trace> validateTrace(const Trace& trace);

/// JSON with {"schema": "saccade.trace", "version": 1, ...}.
std::string traceToJson(const Trace& trace, int indent = 2);
/// Parses and validates; errors name the missing or malformed field.
Result<Trace> traceFromJson(const std::string& json);
/// One row per step: step, chosen, log_prob, entropy, max_output_prob, output_argmax, token.
std::string traceToCsv(const Trace& trace);

/// Atomic save (temp file + rename) and checked load.
Result<Unit> saveTrace(const Trace& trace, const std::string& path);
Result<Trace> loadTrace(const std::string& path);

}  // namespace saccade
