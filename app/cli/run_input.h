#pragma once
// The image a command runs a model on: a file (--image) or a test sample (--sample D:i) with its
// ground truth.

#include <optional>
#include <string>

#include "common/progress.h"
#include "common/result.h"
#include "data/image.h"
#include "models/attention_model.h"
#include "trace/trace.h"

namespace saccade::cli {

struct TraceInput {
    Image image;
    std::string id;
    std::optional<GroundTruth> truth;
};

/// Exactly one of `imagePath` and `sampleRef` ("DATASET:INDEX" of the test split) is given;
/// files are read with the model's channel count.
Result<TraceInput> resolveInput(const AttentionModel& model, const std::string& imagePath,
                                const std::string& sampleRef);

/// Sets a captioner's word temperature (stochastic captions sample their words at it); an error
/// when `temperature` > 0 and the model is not a captioner, or the value is out of range.
Result<Unit> applyWordTemperature(AttentionModel& model, double temperature);

/// A progress line on stderr ("what 42%") when stderr is a terminal; nothing otherwise.
Progress consoleProgress(const std::string& what);

}  // namespace saccade::cli
