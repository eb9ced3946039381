#pragma once
// --resize, --center-crop, --mean and --std on every command that opens an image model: the
// user's preprocessing over the model's own (models/input_overrides.h).

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "common/result.h"
#include "models/attention_model.h"

namespace saccade::cli {

struct InputOptions {
    std::string resize, crop, mean, std;
};

/// Adds the four options to `cmd`, read into `o`.
void addInputOptions(CLI::App* cmd, InputOptions& o);

/// Loads `path` on `device` with the options' preprocessing; a bad value is an Error naming its option.
/// The model's warning (AttentionModel::warning), if any, goes to stderr as one line.
Result<std::shared_ptr<AttentionModel>> loadModelWith(const std::string& path, const std::string& device, const InputOptions& o);

}  // namespace saccade::cli
