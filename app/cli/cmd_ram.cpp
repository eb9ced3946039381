// saccade-cli train ram and bench ram: the Recurrent Attention Model (Mnih et al. 2014).

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <unistd.h>


#include <nlohmann/json.hpp>

#include "commands.h"
#include "strict_options.h"
#include "models/ram_bench.h"
#include "io/checkpoint.h"
#include "train/ram_trainer.h"
#include "reference_runner.h"
#include "train_console.h"

namespace saccade::cli {

namespace {

// The reference's arguments: "--flag value ..." split on spaces (our own fixed strings).
nlohmann::json runReference(const std::string& script, const std::string& args, int threads) {
    std::vector<std::string> argv;
    std::istringstream in(args);
    for (std::string word; in >> word;) argv.push_back(word);
    return runReferenceScript("bench ram", script, argv, threads);
}

void addTrainRam(CLI::App& train, int& exitCode) {
    auto o = std::make_shared<RamTrainOptions>();
    auto* cmd = train.add_subcommand(
        "ram", "The Recurrent Attention Model: Gaussian glimpse locations trained with REINFORCE "
               "and a learned baseline, classifier by cross-entropy (the hybrid loss).");
    cmd->add_option("--dataset", o->dataset, "training data (see 'data list')")->capture_default_str();
    cmd->add_option("--glimpses", o->model.glimpses, "glimpses T")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--glimpse-size", o->model.glimpseSize, "g (default: 8 for 28x28, 12 for 60 and 100)")->check(wholeNumberIn(2, 512));
    cmd->add_option("--scales", o->model.scales, "k patches per glimpse (default: 1 for 28x28, 3 for 60, 4 for 100)")->check(wholeNumberIn(1, 8));
    cmd->add_option("--scale-factor", o->model.scaleFactor, "s: each patch s times wider")->capture_default_str()->check(wholeNumberIn(1, 4));
    cmd->add_option("--core", o->model.core, "rnn (ReLU) or lstm")->capture_default_str();
    cmd->add_option("--std", o->model.locationStd, "standard deviation of the location policy ([-1, 1] units)")
        ->capture_default_str()->check(numberIn(1e-4, 2));
    cmd->add_option("--hidden", o->model.hidden, "core state size")->capture_default_str()->check(wholeNumberIn(1, 8192));
    cmd->add_option("--replicas", o->replicas, "M: Monte-Carlo replicas of each image per batch")->capture_default_str()->check(wholeNumberIn(1, 1024));
    cmd->add_option("--minutes", o->minutes, "time budget; fixes the iteration count after a warm-up")->check(numberIn(1e-3, 1e6));
    cmd->add_option("--iterations", o->iterations, "exact iteration count (reproducible)")->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--batch", o->batch, "images per batch (before replication)")->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--lr", o->lr, "Adam learning rate (cosine schedule)")->capture_default_str();
    auto* fixed = cmd->add_flag("--fixed-canvases", "every pass sees the same canvases (default: each pass places "
                                                    "the items anew, with new distractors)");
    cmd->add_option("--eval-every", o->evalEvery, "iterations between evaluations")->capture_default_str();
    cmd->add_option("--seed", o->seed, "seed of initialisation, order and draws")->capture_default_str();
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--resume", o->resume, "continue from this checkpoint");
    cmd->add_option("--out", o->out, "checkpoint to write (.pt; sidecar .json and metrics beside it)")->required();
    auto flags = std::make_shared<TrainConsoleFlags>();
    addTrainConsoleOptions(cmd, *flags);
    cmd->callback([o, flags, fixed, &exitCode] {
        o->freshCanvases = fixed->count() == 0;
        o->model.glimpseDim = o->model.hidden;
        std::ostringstream command;
        command << "saccade-cli train ram --dataset " << o->dataset << " --glimpses " << o->model.glimpses
                << " --core " << o->model.core << " --std " << o->model.locationStd << " --hidden "
                << o->model.hidden << " --replicas " << o->replicas << " --batch " << o->batch << " --lr "
                << o->lr << " --seed " << o->seed;
        if (o->model.glimpseSize > 0) command << " --glimpse-size " << o->model.glimpseSize;
        if (o->model.scales > 0) command << " --scales " << o->model.scales;
        command << " --scale-factor " << o->model.scaleFactor;
        if (!o->freshCanvases) command << " --fixed-canvases";
        o->command = command.str();
        exitCode = runTrainingInConsole(
            "train ram", *flags, *o,
            [o](const ProgressCallback& progress) { return trainRamModel(*o, progress); },
            [](std::ostream& os, const TrainProgress& p) {
                os << "  reward " << p.reward << "  baseline " << p.baseline;
            },
            [](std::ostream& os, const TrainProgress& p) {
                os << " mean " << p.evalArgmax << "  sample " << p.evalSample << "  random glimpses " << p.evalSoft;
            });
    });
}

void addBenchRam(CLI::App& bench, int& exitCode) {
    auto o = std::make_shared<RamBenchOptions>();
    auto reference = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = bench.add_subcommand(
        "ram", "RAM: N stochastic episodes of one image in one batched call, and training images/s; "
               "with --reference, the same figures of the plain PyTorch reference and the ratios.");
    cmd->add_option("--episodes", o->episodes, "episodes of one image")->capture_default_str();
    cmd->add_option("--batch", o->batch, "training batch")->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--repeats", o->repeats, "timed repeats (median)")->capture_default_str();
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--model", o->model, "also time the episodes of this trained RAM checkpoint");
    cmd->add_option("--reference", *reference, "path of ram_reference.py (run with python3 and the same threads)")->check(regularFile());
    cmd->add_flag("--json", *json, "print our figures as one JSON object");
    cmd->callback([o, reference, json, &exitCode] {
        auto r = benchRam(*o);
        if (!r) { exitCode = badInput("bench ram", r.error()); return; }
        if (*json) { std::cout << ramBenchToJson(*o, *r) << "\n"; return; }
        std::cout << std::fixed << std::setprecision(1) << "RAM on " << r->device << ", " << r->threads
                  << " intra-op thread(s): " << o->canvas << "x" << o->canvas << ", " << o->glimpses
                  << " glimpses, g " << o->glimpseSize << ", k " << o->scales << ", hidden " << o->hidden << "\n"
                  << "  " << o->episodes << " episodes of one image: " << std::setprecision(2) << r->episodesMs
                  << " ms median\n    matrix work of independent episodes " << r->episodesGflop
                  << " GFLOP; computed " << r->episodesGflopComputed << " GFLOP (" << r->glimpsesComputed << " of "
                  << std::int64_t(o->episodes) * o->glimpses << " glimpses; shared rows run once): "
                  << std::setprecision(1) << r->episodesGflopComputed / (r->episodesMs / 1000.0) << " GFLOP/s\n"
                  << (o->model.empty() ? std::string()
                                       : "  the same episodes on the trained " + o->model + ": " +
                                             std::to_string(r->modelEpisodesMs).substr(0, 5) + " ms (" +
                                             std::to_string(r->modelGlimpsesComputed) + " glimpses computed)\n")
                  << "  training, batch " << o->batch << ": " << std::setprecision(1) << r->trainStepMs
                  << " ms per step, " << std::setprecision(0) << r->trainImagesPerSecond << " images/s\n";
        if (reference->empty()) return;
        const std::string common = "--threads " + std::to_string(r->threads) + " --batch " + std::to_string(o->batch) +
                                   " --episodes " + std::to_string(o->episodes) + " --repeats 5";
        const auto loop = runReference(*reference, "--bench train --retina loop " + common, r->threads);
        const auto grid = runReference(*reference, "--bench train --retina grid " + common, r->threads);
        const auto episodes = runReference(*reference, "--bench episodes --retina grid " + common, r->threads);
        if (loop.empty() || grid.empty() || episodes.empty()) { exitCode = kExitFailure; return; }
        const double loopRate = loop.at("images_per_s"), gridRate = grid.at("images_per_s");
        const double gridMs = episodes.at("ms");
        std::cout << std::setprecision(0) << "reference (PyTorch " << loop.value("torch", std::string("?"))
                  << ", same threads):\n"
                  << "  training, retina loop: " << loopRate << " images/s   ours/loop = " << std::setprecision(2)
                  << r->trainImagesPerSecond / loopRate << "x (target >= 3)\n"
                  << std::setprecision(0) << "  training, retina grid: " << gridRate << " images/s   ours/grid = "
                  << std::setprecision(2) << r->trainImagesPerSecond / gridRate << "x (target >= 1.5)\n"
                  << "  " << o->episodes << " episodes, retina grid: " << gridMs << " ms   grid/ours = "
                  << gridMs / r->episodesMs << "x (target >= 4)\n";
    });
}

}  // namespace

void addRamCommands(CLI::App& train, CLI::App& bench, int& exitCode) {
    addTrainRam(train, exitCode);
    addBenchRam(bench, exitCode);
}

}  // namespace saccade::cli
