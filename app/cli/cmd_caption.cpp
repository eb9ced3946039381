// saccade-cli train caption and bench caption: the Show-Attend-Tell captioner (Xu et al. 2015).

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "strict_options.h"
#include "io/checkpoint.h"
#include "models/caption_bench.h"
#include "reference_runner.h"
#include "train/caption_trainer.h"
#include "train_console.h"

namespace saccade::cli {

namespace {

void addTrainCaption(CLI::App& train, int& exitCode) {
    auto o = std::make_shared<CaptionTrainOptions>();
    auto* cmd = train.add_subcommand(
        "caption", "The Show-Attend-Tell captioner on captioned scenes: a CNN grid of annotations, an LSTM "
                   "that looks once per word (soft, hard REINFORCE or gumbel attention) and a deep output layer.");
    cmd->add_option("--dataset", o->dataset, "scenes64 or scenes96")->capture_default_str();
    cmd->add_option("--mode", o->model.mode, "soft, hard or gumbel")->capture_default_str();
    cmd->add_option("--grid", o->model.grid, "annotation cells per side (image size / grid: 1, 2, 4 or 8)")
        ->capture_default_str();
    cmd->add_option("--feature-dim", o->model.featureDim, "D: annotation vector size")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--hidden", o->model.hidden, "LSTM state size")->capture_default_str()->check(wholeNumberIn(1, 8192));
    cmd->add_option("--embed", o->model.embed, "word embedding size")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--attn-hidden", o->model.attnHidden, "additive scorer width")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--scorer", o->model.scorer, "additive, general, dot or scaled-dot")->capture_default_str();
    cmd->add_option("--encoder", o->model.encoder,
                    "local: a cell sees 14 px, so naming an object needs attention on it; "
                    "wide: about 40 px, so a word can be read beside its object")
        ->capture_default_str();
    cmd->add_flag("--cell-positions", o->model.cellPositions,
                  "add a learned vector per cell to its features, so a context read from one cell says where it was");
    cmd->add_option("--dropout", o->model.dropout, "before the deep output layer")->capture_default_str()->check(numberIn(0, 0.99));
    cmd->add_option("--max-length", o->model.maxLength,
                    "longest caption in tokens with <start> and <end> (0: the dataset's longest)")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--minutes", o->minutes, "time budget; fixes the iteration count after a warm-up")->check(numberIn(1e-3, 1e6));
    cmd->add_option("--iterations", o->iterations, "exact iteration count (reproducible)")->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--batch", o->batch, "captions per batch")->capture_default_str();
    cmd->add_option("--lr", o->lr, "Adam learning rate (cosine schedule)")->capture_default_str();
    cmd->add_option("--dsr-lambda", o->dsrLambda, "soft: doubly stochastic regulariser weight")->capture_default_str();
    cmd->add_option("--attention-entropy", o->attentionEntropy,
                    "soft: weight of the attention's entropy per word in the loss (0: the paper's soft attention; "
                    "more sharpens each word's attention)")
        ->capture_default_str()->check(numberIn(0, 100));
    cmd->add_option("--attention-entropy-warmup", o->attentionEntropyWarmup,
                    "soft: iterations over which the attention entropy weight ramps up from 0 (0: none)")
        ->capture_default_str()->check(wholeNumberIn(0, 1000000000));
    cmd->add_option("--entropy-bonus", o->entropyBonus, "hard: entropy bonus")->capture_default_str();
    cmd->add_option("--expectation-mix", o->expectationMix,
                    "hard: probability of using the expected context for a caption")->capture_default_str()->check(numberIn(0, 1));
    cmd->add_option("--gumbel-rate", o->gumbelRate, "gumbel: r in tau = max(0.5, exp(-r t))")->capture_default_str();
    cmd->add_option("--eval-every", o->evalEvery, "iterations between evaluations")->capture_default_str()->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--eval-images", o->evalImages, "held-out scenes per evaluation")->capture_default_str()->check(wholeNumberIn(1, 1000000));
    cmd->add_option("--seed", o->seed, "seed of initialisation, order and draws")->capture_default_str();
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--resume", o->resume, "continue from this checkpoint");
    cmd->add_option("--init-from", o->initFrom,
                    "start from this captioner's weights (same architecture, any mode) with a fresh optimizer: "
                    "e.g. fine-tune a soft captioner with REINFORCE")->excludes("--resume");
    cmd->add_option("--out", o->out, "checkpoint to write (.pt; sidecar .json and metrics beside it)")->required();
    auto flags = std::make_shared<TrainConsoleFlags>();
    addTrainConsoleOptions(cmd, *flags);
    cmd->callback([o, flags, &exitCode] {
        std::ostringstream command;
        command << "saccade-cli train caption --dataset " << o->dataset << " --mode " << o->model.mode << " --grid "
                << o->model.grid << " --feature-dim " << o->model.featureDim << " --hidden " << o->model.hidden
                << " --embed " << o->model.embed << " --attn-hidden " << o->model.attnHidden << " --scorer "
                << o->model.scorer << " --encoder " << o->model.encoder
                << (o->model.cellPositions ? " --cell-positions" : "") << " --dropout " << o->model.dropout
                << " --batch " << o->batch << " --lr "
                << o->lr << " --seed " << o->seed;
        if (o->model.maxLength > 0) command << " --max-length " << o->model.maxLength;
        if (o->model.mode == "soft") command << " --dsr-lambda " << o->dsrLambda;
        if (o->model.mode == "soft" && o->attentionEntropy > 0) command << " --attention-entropy " << o->attentionEntropy;
        if (o->model.mode == "soft" && o->attentionEntropyWarmup > 0)
            command << " --attention-entropy-warmup " << o->attentionEntropyWarmup;
        if (o->model.mode == "hard")
            command << " --entropy-bonus " << o->entropyBonus << " --expectation-mix " << o->expectationMix;
        if (o->model.mode == "gumbel") command << " --gumbel-rate " << o->gumbelRate;
        if (!o->initFrom.empty()) command << " --init-from " << o->initFrom;
        o->command = command.str();
        exitCode = runTrainingInConsole(
            "train caption", *flags, *o,
            [o](const ProgressCallback& progress) { return trainCaptionModel(*o, progress); },
            [o](std::ostream& os, const TrainProgress& p) {
                if (o->model.mode == "hard") os << "  reward " << p.reward << "  baseline " << p.baseline;
                if (o->model.mode == "gumbel") os << "  tau " << p.temperature;
                os << "  H " << p.entropy << "  word acc " << p.trainAccuracy;
            },
            [](std::ostream& os, const TrainProgress& p) {
                os << " exact soft " << p.evalSoft << "  argmax " << p.evalArgmax << "  sample " << p.evalSample
                   << "  BLEU-4 " << p.evalBleu4 << "  mass on object " << p.evalAttention;
            });
    });
}

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

void addCaptionCommands(CLI::App& train, CLI::App& bench, int& exitCode) {
    addTrainCaption(train, exitCode);
    addBenchCaption(bench, exitCode);
}

}  // namespace saccade::cli
