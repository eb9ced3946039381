// saccade-cli bench ram: the Recurrent Attention Model (Mnih et al. 2014) against its reference. Its
// training is `train ram`, from the family registry (app/cli/cmd_train.cpp).

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <unistd.h>


#include <nlohmann/json.hpp>

#include "commands.h"
#include "strict_options.h"
#include "models/ram/ram_bench.h"
#include "io/checkpoint.h"
#include "models/ram/ram_trainer.h"
#include "reference_runner.h"

namespace saccade::cli {

namespace {

// The reference's arguments: "--flag value ..." split on spaces (our own fixed strings).
nlohmann::json runReference(const std::string& script, const std::string& args, int threads) {
    std::vector<std::string> argv;
    std::istringstream in(args);
    for (std::string word; in >> word;) argv.push_back(word);
    return runReferenceScript("bench ram", script, argv, threads);
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
    cmd->add_flag("--json", *json, "print one JSON object (with --reference, the reference's figures and the ratios too)");
    cmd->callback([o, reference, json, &exitCode] {
        auto r = benchRam(*o);
        if (!r) { exitCode = badInput("bench ram", r.error()); return; }
        auto out = nlohmann::json::parse(ramBenchToJson(*o, *r));
        if (!reference->empty()) {
            const std::string common = "--threads " + std::to_string(r->threads) + " --batch " + std::to_string(o->batch) +
                                       " --episodes " + std::to_string(o->episodes) + " --repeats 5";
            const auto loop = runReference(*reference, "--bench train --retina loop " + common, r->threads);
            const auto grid = runReference(*reference, "--bench train --retina grid " + common, r->threads);
            const auto episodes = runReference(*reference, "--bench episodes --retina grid " + common, r->threads);
            if (loop.empty() || grid.empty() || episodes.empty()) { exitCode = kExitFailure; return; }
            const double loopRate = loop.at("images_per_s"), gridRate = grid.at("images_per_s"), gridMs = episodes.at("ms");
            out["reference"] = {{"train_loop", {{"images_per_s", loopRate}}}, {"train_grid", {{"images_per_s", gridRate}}},
                                {"episodes_grid", {{"ms", gridMs}}}, {"torch", loop.value("torch", std::string("?"))}};
            out["ratios"] = {{"train_over_loop", r->trainImagesPerSecond / loopRate},
                             {"train_over_grid", r->trainImagesPerSecond / gridRate},
                             {"episodes_speedup", gridMs / r->episodesMs}};
        }
        if (*json) { std::cout << out.dump(2) << "\n"; return; }
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
        if (!out.contains("reference")) return;
        const auto& ref = out["reference"];
        const auto& q = out["ratios"];
        std::cout << std::setprecision(0) << "reference (PyTorch " << ref["torch"].get<std::string>() << ", same threads):\n"
                  << "  training, retina loop: " << ref["train_loop"]["images_per_s"].get<double>()
                  << " images/s   ours/loop = " << std::setprecision(2) << q["train_over_loop"].get<double>()
                  << "x (target >= 3)\n"
                  << std::setprecision(0) << "  training, retina grid: " << ref["train_grid"]["images_per_s"].get<double>()
                  << " images/s   ours/grid = " << std::setprecision(2) << q["train_over_grid"].get<double>()
                  << "x (target >= 1.5)\n"
                  << "  " << o->episodes << " episodes, retina grid: " << ref["episodes_grid"]["ms"].get<double>()
                  << " ms   grid/ours = " << q["episodes_speedup"].get<double>() << "x (target >= 4)\n";
    });
}

}  // namespace

void addRamCommands(CLI::App& bench, int& exitCode) {
    addBenchRam(bench, exitCode);
}

}  // namespace saccade::cli
