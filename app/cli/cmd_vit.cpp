// saccade-cli bench vit: the native Vision Transformer against vit_reference.py. Its training is
// `train vit`, from the family registry (app/cli/cmd_train.cpp).

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "models/vit/vit_bench.h"
#include "reference_runner.h"
#include "strict_options.h"
#include "models/vit/vit_trainer.h"

namespace saccade::cli {

namespace {

void addVitSizes(CLI::App* cmd, VitConfig& c) {
    cmd->add_option("--patch", c.patch, "patch side in pixels (the image side must be a multiple)")
        ->capture_default_str()->check(wholeNumberIn(1, 1024));
    cmd->add_option("--dim", c.dim, "token width (a multiple of --heads)")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--layers", c.layers, "transformer layers")->capture_default_str()->check(wholeNumberIn(1, 48));
    cmd->add_option("--heads", c.heads, "attention heads per layer")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--mlp", c.mlp, "hidden width of each layer's MLP")->capture_default_str()->check(wholeNumberIn(1, 16384));
}

void addBenchVit(CLI::App& bench, int& exitCode) {
    auto o = std::make_shared<VitBenchOptions>();
    auto reference = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = bench.add_subcommand(
        "vit", "Vision Transformer: training images/s and one image's trace; with --reference, the PyTorch "
               "equivalent (scripts/vit_reference.py) at the same sizes and threads, and the ratio.");
    addVitSizes(cmd, o->model);
    cmd->add_option("--batch", o->batch, "training batch")->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--repeats", o->repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--open", o->openModel, "also time opening this model file (any kind) and drawing its first trace")
        ->check(regularFile());
    cmd->add_option("--reference", *reference, "path of scripts/vit_reference.py (run with /usr/bin/python3, same threads)")
        ->check(regularFile());
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->callback([o, reference, json, &exitCode] {
        auto r = benchVit(*o);
        if (!r) { exitCode = badInput("bench vit", r.error()); return; }
        auto out = nlohmann::json::parse(vitBenchToJson(*o, *r));
        if (!reference->empty()) {
            const auto& m = o->model;
            const std::vector<std::string> args = {
                "--threads", std::to_string(r->threads), "--batch", std::to_string(o->batch), "--repeats", std::to_string(o->repeats),
                "--image", std::to_string(m.imageSize), "--patch", std::to_string(m.patch), "--dim", std::to_string(m.dim),
                "--layers", std::to_string(m.layers), "--heads", std::to_string(m.heads), "--mlp", std::to_string(m.mlp)};
            const auto ref = runReferenceScript("bench vit", *reference, args, r->threads);
            if (ref.empty()) { exitCode = kExitFailure; return; }  // the runner said why
            if (!ref.contains("images_per_s") || !ref["images_per_s"].is_number() || ref["images_per_s"].get<double>() <= 0) {
                std::cerr << "saccade-cli bench vit: " << *reference << " printed no positive images_per_s\n";
                exitCode = kExitFailure;
                return;
            }
            const double refRate = ref["images_per_s"].get<double>();
            out["reference"] = {{"train", {{"images_per_s", refRate}}}, {"torch", ref.value("torch", std::string("?"))}};
            out["ratios"] = {{"train_images_per_s", r->trainImagesPerSecond / refRate}};
        }
        if (*json) { std::cout << out.dump(2) << "\n"; return; }
        const auto& m = o->model;
        std::cout << std::fixed << std::setprecision(1) << "vision transformer on " << r->device << ", " << r->threads
                  << " intra-op thread(s): " << m.imageSize << "x" << m.imageSize << ", patch " << m.patch << ", width "
                  << m.dim << ", " << m.layers << " layers x " << m.heads << " heads, MLP " << m.mlp << "\n"
                  << "  training, batch " << o->batch << ": " << r->trainStepMs << " ms per step, " << std::setprecision(0)
                  << r->trainImagesPerSecond << " images/s\n"
                  << std::setprecision(2) << "  one image's trace (every layer's attention): " << r->traceMs << " ms\n";
        if (!o->openModel.empty())
            std::cout << "  " << o->openModel << ": opened in " << r->openMs << " ms, first trace " << r->firstTraceMs
                      << " ms (target: both within 1,000 ms)\n";
        if (out.contains("ratios"))
            std::cout << std::setprecision(0) << "reference (PyTorch " << out["reference"]["torch"].get<std::string>()
                      << ", same threads): " << out["reference"]["train"]["images_per_s"].get<double>()
                      << " images/s   ours/reference = " << std::setprecision(2)
                      << out["ratios"]["train_images_per_s"].get<double>() << "x (target >= 1.5)\n";
    });
}

}  // namespace

void addVitCommands(CLI::App& bench, int& exitCode) {
    addBenchVit(bench, exitCode);
}

}  // namespace saccade::cli
