#pragma once
// `train ... --resume X.pt` continues X's run: its dataset or task, seed and architecture come
// from X's sidecar. An option given with --resume that says otherwise is refused, not ignored.

#include <CLI/CLI.hpp>

namespace saccade::cli {

/// Throws CLI::ValidationError (one line, exit 2) for an option of a `train` command whose value
/// differs from the resumed checkpoint's (--task reverse on a dates model). Options the checkpoint
/// does not record (the budget, the learning rate, the device) may change on a resume.
void checkResumeAgreesWithCheckpoint(CLI::App& app);

}  // namespace saccade::cli
