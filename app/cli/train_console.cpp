#include "train_console.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include <unistd.h>

#include "commands.h"

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

}  // namespace

int runTrainingInConsole(const std::string& commandName, const std::string& recreate, const std::string& out,
                         const std::function<Result<TrainSummary>(const ProgressCallback&)>& train,
                         const ProgressFields& fields, const ProgressFields& evaluation) {
    g_interrupted = false;
    std::signal(SIGINT, onInterrupt);
    const bool tty = ::isatty(STDOUT_FILENO);
    double lastPrint = -10;
    auto result = train([&](const TrainProgress& p) {
        if (p.evaluated || p.elapsedSeconds - lastPrint >= (tty ? 1.0 : 30.0) || p.iteration == p.total) {
            lastPrint = p.elapsedSeconds;
            std::cout << (tty && !p.evaluated ? "\r" : "") << "iter " << p.iteration << "/"
                      << (p.total ? std::to_string(p.total) : std::string("?")) << std::fixed
                      << std::setprecision(3) << "  loss " << p.loss << "  ce " << p.crossEntropy;
            fields(std::cout, p);
            std::cout << "  " << clock(p.elapsedSeconds) << " ETA " << clock(p.etaSeconds);
            if (p.evaluated) {
                std::cout << "\n  eval (first 1000 test images):";
                evaluation(std::cout, p);
            }
            if (p.evaluated || !tty) std::cout << "\n";
            std::cout << std::flush;
        }
        return !g_interrupted.load();
    });
    std::signal(SIGINT, SIG_DFL);
    if (!result) return badInput(commandName, result.error());
    std::cout << "\n" << (result->cancelled ? "interrupted; saved " : "saved ") << result->checkpoint << " after "
              << result->iterations << " iterations (" << std::setprecision(0) << result->imagesPerSecond
              << " training images/s)\n"
              << "to re-create it exactly: " << recreate << " --iterations " << result->iterations << " --out "
              << out << "\n";
    return 0;
}

}  // namespace saccade::cli
