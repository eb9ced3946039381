// saccade-cli bench caption: the Show-Attend-Tell captioner (Xu et al. 2015) against sat_reference.py. Its
// training is `train caption`, from the family registry (app/cli/cmd_train.cpp).

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "strict_options.h"
#include "io/checkpoint.h"
#include "models/caption/caption_bench.h"
#include "reference_runner.h"
#include "models/caption/caption_trainer.h"

namespace saccade::cli {

namespace {

void addBenchCaption(CLI::App& bench, int& exitCode) {
    auto o = std::make_shared<CaptionBenchOptions>();
    auto reference = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = bench.add_subcommand(
        "caption", "Captioner decoder on random annotations at sat_reference.py's sizes: training images/s and "
                   "N stochastic captions of one image; with --reference, the reference's figures and the ratios.");
    cmd->add_option("--captions", o->captions, "stochastic captions of one image")->capture_default_str();
    cmd->add_option("--batch", o->batch, "training batch")->capture_default_str();
    cmd->add_option("--steps", o->steps, "timed training steps per repeat")->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--repeats", o->repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--warmups", o->warmups, "untimed runs before the repeats")->capture_default_str()->check(wholeNumberIn(0, 100));
    cmd->add_option("--reference", *reference, "path of sat_reference.py (run with /usr/bin/python3, same threads)")->check(regularFile());
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->callback([o, reference, json, &exitCode] {
        auto r = benchCaption(*o);
        if (!r) { exitCode = badInput("bench caption", r.error()); return; }
        auto out = nlohmann::json::parse(captionBenchToJson(*o, *r));
        if (!reference->empty()) {
            const std::vector<std::string> common = {"--threads", std::to_string(r->threads), "--batch",
                                                     std::to_string(o->batch), "--captions",
                                                     std::to_string(o->captions), "--repeats", "3"};
            auto trainArgs = common, captionArgs = common;
            trainArgs.insert(trainArgs.begin(), {"--bench", "train"});
            captionArgs.insert(captionArgs.begin(), {"--bench", "captions"});
            const auto train = runReferenceScript("bench caption", *reference, trainArgs, r->threads);
            if (train.empty()) { exitCode = kExitFailure; return; }  // the runner said why
            const auto captions = runReferenceScript("bench caption", *reference, captionArgs, r->threads);
            if (captions.empty()) { exitCode = kExitFailure; return; }
            const double refRate = train.at("images_per_s"), refMs = captions.at("ms");
            out["reference"] = {{"train", {{"images_per_s", refRate}}}, {"captions", {{"ms", refMs}}},
                                {"torch", train.value("torch", std::string("?"))}};
            out["ratios"] = {{"train_images_per_s", r->trainImagesPerSecond / refRate},
                             {"captions_speedup", refMs / r->captionsMs}};
        }
        if (*json) { std::cout << out.dump(2) << "\n"; return; }
        std::cout << std::fixed << std::setprecision(1) << "captioner decoder on " << r->device << ", " << r->threads
                  << " intra-op thread(s): grid " << o->grid << ", D " << o->featureDim << ", hidden " << o->hidden
                  << ", vocabulary " << o->vocabulary << ", up to " << o->length << " tokens\n"
                  << "  training, batch " << o->batch << ": " << r->trainStepMs << " ms per step, "
                  << std::setprecision(0) << r->trainImagesPerSecond << " images/s\n"
                  << std::setprecision(1) << "  " << o->captions << " stochastic captions of one image: "
                  << r->captionsMs << " ms (" << r->captionSteps << " word steps)\n";
        if (out.contains("ratios")) {
            std::cout << std::setprecision(2) << "reference (PyTorch " << out["reference"]["torch"].get<std::string>()
                      << ", same threads):\n  training " << out["reference"]["train"]["images_per_s"].get<double>()
                      << " images/s   ours/reference = " << out["ratios"]["train_images_per_s"].get<double>()
                      << "x (target >= 3)\n  captions " << out["reference"]["captions"]["ms"].get<double>()
                      << " ms   reference/ours = " << out["ratios"]["captions_speedup"].get<double>()
                      << "x (target >= 10)\n";
        }
    });
}

}  // namespace

void addCaptionCommands(CLI::App& bench, int& exitCode) {
    addBenchCaption(bench, exitCode);
}

}  // namespace saccade::cli
