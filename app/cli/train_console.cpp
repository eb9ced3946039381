#include "train_console.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <utility>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <torch/cuda.h>

#include "commands.h"
#include "common/memory_meter.h"
#include "common/runtime.h"
#include "strict_options.h"
#include "io/checkpoint.h"
#include "train/train_loop.h"

namespace saccade::cli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted = true; }

std::string clock(double seconds) {
    const int s = static_cast<int>(seconds + 0.5);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

// How a checkpoint's training ran, for the lines that say how to re-create it.
struct RunHistory {
    std::string command;  ///< the first run's command, less --iterations and --out
    std::string name;     ///< "train patch"
    std::string out;
    std::string ranks;    ///< " --world-size W (...)" in a data-parallel run
    std::optional<CheckpointInfo> resumed;   ///< the checkpoint a resumed run continued
    std::int64_t iterations = 0, total = 0;  ///< done, and the total of this run's schedule (0: not known)
    bool cancelled = false;
};

// A fresh run of N iterations anneals its learning rate over N. So one command re-creates the
// checkpoint only where one schedule ran from the start to its end. A run resumed with another
// total, or one stopped before its total, is told as the runs it took, never as a command that
// would give other weights.
std::string recreateText(const RunHistory& h) {
    const std::string resume = "saccade-cli " + h.name + " --resume " + h.out;
    if (h.cancelled && h.total == 0)  // a time budget stopped in its warm-up, before it fixed a total
        return "it was stopped at iteration " + std::to_string(h.iterations) +
               " before its time budget fixed a total: no command re-creates it exactly (" + resume + " --out " + h.out +
               " continues it)";
    auto schedules = h.resumed ? earlierSchedules(*h.resumed, h.total) : std::vector<std::pair<std::int64_t, std::int64_t>>{};
    schedules.emplace_back(h.iterations, h.total > 0 ? h.total : h.iterations);  // this run's own
    std::string text = "to re-create it exactly: " + recreateRecipe(h.command, h.name, h.out, h.ranks, schedules);
    if (h.cancelled && h.total > h.iterations)
        text += " (" + resume + " --out " + h.out + " finishes its schedule)";
    return text;
}

}  // namespace

void addTrainConsoleOptions(CLI::App* cmd, TrainConsoleFlags& console) {
    cmd->add_flag("--json", console.json, "no progress lines: one JSON object when done (every rank prints its own)");
    DistributedFlags& flags = console.distributed;
    cmd->add_option("--world-size", flags.worldSize, "processes in the group; --batch is split evenly among them")
        ->check(wholeNumberIn(1, 4096));
    cmd->add_option("--rank", flags.rank, "this process's rank, 0..world size - 1 (0 saves and prints)")
        ->check(wholeNumberIn(0, 4095));
    cmd->add_option("--master-addr", flags.masterAddr, "host of rank 0 (default 127.0.0.1; or MASTER_ADDR)");
    cmd->add_option("--master-port", flags.masterPort, "port of rank 0's rendezvous (default 29500)")
        ->check(wholeNumberIn(1, 65535));
    cmd->add_option("--group-timeout", flags.timeoutSeconds,
                    "seconds to wait for the other ranks, at the start and at every step (default 120); "
                    "rank 0's evaluations are waited out whatever they take")
        ->check(numberIn(1, 86400));
}

int runTrainingInConsole(const std::string& commandName, const TrainConsoleFlags& flags, TrainCommonOptions& options,
                         const std::function<Result<TrainSummary>(const ProgressCallback&)>& train,
                         const ProgressFields& fields, const ProgressFields& evaluation, const std::string& examples) {
    auto distributed = resolveDistributed(flags.distributed);
    if (!distributed) return badInput(commandName, distributed.error());
    options.distributed = *distributed;
    RunHistory history;
    if (!options.resume.empty()) {  // the resumed run's own command, not this one's defaults
        if (auto info = readCheckpointInfo(options.resume); info) {
            if (!info->command.empty()) options.command = info->command;
            history.resumed = *info;
        }
    }
    const std::string& recreate = options.command;
    const std::string& out = options.out;
    const bool leader = distributed->rank == 0;
    g_interrupted = false;
    std::signal(SIGINT, onInterrupt);
    // A batch too large for this machine fails with "out of memory" in words, not the kernel's kill.
    // On the CPU only: CUDA's libraries map host memory of their own that the cap would count.
    if (options.device == "cpu" || (options.device == "auto" && !torch::cuda::is_available()))
        memory::capDataToAvailableMemory();
    const bool tty = ::isatty(STDOUT_FILENO);
    double lastPrint = -10;
    auto result = train([&](const TrainProgress& p) {
        history.total = p.total;
        if (!leader || flags.json) return !g_interrupted.load();
        if (p.evaluated || p.elapsedSeconds - lastPrint >= (tty ? 1.0 : 30.0) || p.iteration == p.total) {
            lastPrint = p.elapsedSeconds;
            std::cout << (tty && !p.evaluated ? "\r" : "") << "iter " << p.iteration << "/"
                      << (p.total ? std::to_string(p.total) : std::string("?")) << std::fixed
                      << std::setprecision(3) << "  loss " << p.loss << "  ce " << p.crossEntropy;
            fields(std::cout, p);
            std::cout << "  " << clock(p.elapsedSeconds) << " ETA " << clock(p.etaSeconds);
            if (p.evaluated) {
                std::cout << "\n  eval (first " << options.evalImages << " test "
                          << examples << "):";
                evaluation(std::cout, p);
            }
            if (p.evaluated || !tty) std::cout << "\n";
            std::cout << std::flush;
        }
        return !g_interrupted.load();
    });
    reportInterruptions("saccade-cli " + commandName);  // training's graceful stop is over
    if (!result) return badInput(commandName, result.error());
    if (flags.json) {
        nlohmann::json j{{"schema", "saccade.train"}, {"command", recreate}, {"checkpoint", result->checkpoint},
                         {"iterations", result->iterations}, {"cancelled", result->cancelled},
                         {"seconds", result->seconds}, {"train_seconds", result->trainSeconds},
                         {"images_per_s", result->imagesPerSecond}, {"world_size", distributed->worldSize},
                         {"rank", distributed->rank}};
        if (distributed->active()) j["parameters_crc32"] = result->parametersCrc;
        if (auto metrics = nlohmann::json::parse(result->metricsJson, nullptr, false);
            !result->metricsJson.empty() && !metrics.is_discarded())
            j["metrics"] = metrics;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    if (!leader) {
        std::cout << rankName(*distributed) << ": " << (result->cancelled ? "interrupted after " : "done after ")
                  << result->iterations << " iterations; parameters CRC-32 " << result->parametersCrc << "\n";
        return 0;
    }
    std::cout << "\n" << (result->cancelled ? "interrupted; saved " : "saved ") << result->checkpoint << " after "
              << result->iterations << " iterations (" << std::setprecision(0) << result->imagesPerSecond
              << " training " << examples << "/s";
    if (distributed->active())
        std::cout << " on " << distributed->worldSize << " processes; parameters CRC-32 " << result->parametersCrc
                  << " on every rank";
    history.command = recreate;
    history.name = commandName;
    history.out = out;
    history.iterations = result->iterations;
    history.cancelled = result->cancelled;
    if (distributed->active())
        history.ranks = " --world-size " + std::to_string(distributed->worldSize) + " (one process per rank, --rank 0.." +
                        std::to_string(distributed->worldSize - 1) + ")";
    std::cout << ")\n" << recreateText(history) << "\n";
    return 0;
}

}  // namespace saccade::cli
