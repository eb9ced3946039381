#pragma once
// Before any command does work: every path it will write (--out, and a checkpoint's sidecar and
// metrics) is checked against every path it reads (any other option naming an existing file or
// folder, with that file's sidecar and metrics) and against the others it writes.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace saccade::cli {

/// Files a command writes that no option names (a report's PDF beside its --out): (path, what
/// says it) pairs, read once the command line is parsed. They are checked as --out is.
using DerivedOutputs = std::function<std::vector<std::pair<std::string, std::string>>()>;
void declareDerivedOutputs(const CLI::App* command, DerivedOutputs outputs);

/// Throws CLI::ValidationError (one line, exit 2) naming the two colliding paths. Called once the
/// command line is parsed and before the command runs.
void checkOutputsBeforeWork(CLI::App& app);

}  // namespace saccade::cli
