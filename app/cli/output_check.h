#pragma once
// Before any command does work: every path it will write (--out, and a checkpoint's sidecar and
// metrics) is checked against every path it reads (any other option naming an existing file or
// folder, with that file's sidecar and metrics) and against the others it writes.

#include <CLI/CLI.hpp>

namespace saccade::cli {

/// Throws CLI::ValidationError (one line, exit 2) naming the two colliding paths. Called once the
/// command line is parsed and before the command runs.
void checkOutputsBeforeWork(CLI::App& app);

}  // namespace saccade::cli
