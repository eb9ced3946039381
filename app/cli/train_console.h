#pragma once
// The console side of every `train` command: a progress line (every second on a terminal, every
// 30 s in a log, after every evaluation and at the end), Ctrl-C that stops the run (the trainer
// saves), and the closing lines that say where the model went and how to re-create it.

#include <functional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "common/result.h"
#include "train/distributed_settings.h"
#include "train/train_options.h"
#include "train/train_progress.h"

namespace saccade::cli {

using ProgressCallback = std::function<bool(const TrainProgress&)>;
using ProgressFields = std::function<void(std::ostream&, const TrainProgress&)>;

/// What every train command takes besides its family's options.
struct TrainConsoleFlags {
    DistributedFlags distributed;
    bool json = false;  ///< no progress lines; one JSON object at the end
};

/// Adds --json and --world-size, --rank, --master-addr, --master-port, --group-timeout.
void addTrainConsoleOptions(CLI::App* cmd, TrainConsoleFlags& flags);

/// Resolves the data-parallel settings (flags, then WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT)
/// into `options` (a resumed run takes its checkpoint's command as `options.command`), then runs `train` with the console progress (rank 0 only; other ranks print
/// one closing line); `fields` adds the mode's figures to each line and `evaluation` describes an
/// evaluation of the first options.evalImages held-out `examples` ("images", "sentences").
/// Returns the process exit code.
int runTrainingInConsole(const std::string& commandName, const TrainConsoleFlags& flags, TrainCommonOptions& options,
                         const std::function<Result<TrainSummary>(const ProgressCallback&)>& train,
                         const ProgressFields& fields, const ProgressFields& evaluation,
                         const std::string& examples = "images");

}  // namespace saccade::cli
