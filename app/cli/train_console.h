#pragma once
// The console side of every `train` command: a progress line (every second on a terminal, every
// 30 s in a log, after every evaluation and at the end), Ctrl-C that stops the run (the trainer
// saves), and the closing lines that say where the model went and how to re-create it.

#include <functional>
#include <ostream>
#include <string>

#include "common/result.h"
#include "train/train_progress.h"

namespace saccade::cli {

using ProgressCallback = std::function<bool(const TrainProgress&)>;
using ProgressFields = std::function<void(std::ostream&, const TrainProgress&)>;

/// Runs `train` with the console progress; `fields` adds the mode's figures to each line and
/// `evaluation` describes an evaluation. Returns the process exit code.
int runTrainingInConsole(const std::string& commandName, const std::string& recreate, const std::string& out,
                         const std::function<Result<TrainSummary>(const ProgressCallback&)>& train,
                         const ProgressFields& fields, const ProgressFields& evaluation);

}  // namespace saccade::cli
