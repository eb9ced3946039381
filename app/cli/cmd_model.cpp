// saccade-cli eval / trace / render / strip: any model from the command line.
#include <atomic>
#include <csignal>
#include <filesystem>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <unistd.h>

#include "commands.h"
#include "models/translator.h"
#include "input_options.h"
#include "shard_option.h"
#include "strict_options.h"
#include "data/image_io.h"
#include "models/model_input.h"
#include "models/model_loading.h"
#include "render/gif_writer.h"
#include "render/trace_render.h"
#include "run_input.h"
#include "trace/rule_kind.h"

namespace saccade::cli {

namespace {

/// A captioner's figures per object size, under each rule: the words that name an object of that
/// size (attention mass in its box, hit rate) and the objects named in full. Nothing when the
/// scenes' objects carry no size (an imported captioner's data).
void printCaptionSizes(const std::vector<CaptionRuleReport>& captions) {
    if (captions.empty() || captions.front().bySize.empty()) return;
    std::cout << "  by object size  object words   mass  hit rate   objects named in full\n";
    for (const auto& c : captions)
        for (const auto& z : c.bySize) {
            std::cout << "  " << std::left << std::setw(10) << c.rule << std::setw(6) << z.size << std::right
                      << std::setw(13) << z.words;
            if (z.words > 0)
                std::cout << std::setprecision(3) << std::setw(7) << z.mass << std::setw(10) << z.hitRate;
            else
                std::cout << "   not measured";
            const auto named = wilsonAccuracy("", z.named, z.objects);
            std::cout << "   " << z.named << " of " << z.objects << std::setprecision(1) << " (" << 100 * named.accuracy
                      << "%, 95% CI " << 100 * named.low << "-" << 100 * named.high << ")\n";
        }
}

void addEval(CLI::App& app, int& exitCode) {
    struct Args {
        std::string model, dataset, split = "test", rules, device = "auto", shard, pairs;
        std::int64_t limit = 0;
        std::uint64_t seed = 1;
        bool json = false;
        InputOptions input;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("eval", "Accuracy of a model under each selection rule.");
    addInputOptions(cmd, a->input);
    addShardOption(cmd, a->shard);
    cmd->add_option("--model", a->model, "checkpoint (.pt with its .json sidecar)")->required();
    cmd->add_option("--dataset", a->dataset, "default: the dataset the model was trained on");
    cmd->add_option("--pairs", a->pairs,
                    "models that read text: a file of SOURCE<TAB>TARGET[<TAB>ALIGNMENT] lines (default: the task's "
                    "test split; see docs/cli.md)")
        ->check(regularFile());
    cmd->add_option("--split", a->split, "train or test")->capture_default_str();
    cmd->add_option("--rules", a->rules,
                    "comma-separated; patch: soft, sample, argmax, ksample:K, gumbel:TAU; RAM: sample, mean, "
                    "random, ksample:K; captioner: argmax, soft, sample, gumbel:TAU, beam:K (default: all of the "
                    "model's)");
    cmd->add_option("--limit", a->limit, "first N images only (default: all)")->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--seed", a->seed, "seed of the stochastic rules")->capture_default_str();
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", a->json, "print one JSON object");
    cmd->callback([a, &exitCode] {
        auto split = parseSplit(a->split);
        if (!split) { exitCode = badInput("eval", split.error()); return; }
        // --pairs opens the model as a translator, which says what else it is when it is not one.
        const bool readsText = fileReadsText(a->model);
        if (readsText || !a->pairs.empty()) {
            if (readsText && (!a->dataset.empty() || *split != Split::Test || !a->shard.empty() || !a->input.resize.empty() || !a->input.crop.empty() || !a->input.mean.empty() || !a->input.std.empty()))
                { exitCode = badInput("eval", "a sequence model is evaluated on its task's test split or on --pairs: drop --dataset, --split, --shard and the image options"); return; }
            if (readsText && a->rules.find(',') != std::string::npos) { exitCode = badInput("eval", "a sequence model takes one rule: soft, argmax or sample (an import: translate)"); return; }
            exitCode = runSeqEval(a->model, a->device, a->rules, a->limit, a->seed, a->json, a->pairs);
            return;
        }
        auto model = loadModelWith(a->model, a->device, a->input);
        if (!model) { exitCode = badInput("eval", model.error()); return; }
        std::string defaults = (*model)->trainedMode() == TrainingMode::Reinforce ? "sample,mean,ksample:10,random"
                                                                     : "soft,sample,argmax,ksample:10";
        if (!(*model)->evaluationRules().empty()) {  // captioners and imported models say theirs
            defaults.clear();
            for (const auto& r : (*model)->evaluationRules()) defaults += (defaults.empty() ? "" : ",") + r;
        }
        auto rules = parseEvalRules(a->rules.empty() ? defaults : a->rules);
        if (!rules) { exitCode = badInput("eval", rules.error()); return; }
        auto dataset = openDatasetFor(**model, a->dataset.empty() ? (*model)->info().dataset : a->dataset, (*model)->info().seed);
        if (!dataset) { exitCode = badInput("eval", dataset.error()); return; }
        auto shard = shardOf(a->shard);
        if (!shard) { exitCode = badInput("eval", shard.error()); return; }
        auto report = (*model)->evaluate(**dataset, *split, *rules, a->limit, a->seed, {}, *shard);
        if (!report) { exitCode = badInput("eval", report.error()); return; }
        if (shard->active()) {
            auto fingerprint = runFingerprint(a->model, {(*dataset)->info().name, a->split, a->rules, std::to_string(a->seed),
                                                         std::to_string(a->limit)});
            if (!fingerprint) { exitCode = badInput("eval", fingerprint.error()); return; }
            report.value().fingerprint = *fingerprint;
        }
        if (a->json || shard->active()) { std::cout << evalReportToJson(*report) << "\n"; return; }
        std::cout << (!traitsOf(report->trainedMode).recorded ? std::string("imported model")
                                                              : "model trained with " + trainingModeName(report->trainedMode) + " attention")
                  << "; " << report->dataset
                  << " " << report->split << " split, " << report->rules.front().n << " images, "
                  << std::fixed << std::setprecision(1) << report->seconds << " s\n";
        if (traitsOf(report->outputKind).referenceScored) {
            std::cout << "  rule        BLEU-1 BLEU-2 BLEU-3 BLEU-4  exact   object words: mass  hit rate\n";
            for (const auto& c : report->captions) {
                const auto& objects = c.attention.back();
                std::cout << "  " << std::left << std::setw(10) << c.rule << std::right << std::setprecision(3);
                for (double b : c.bleu) std::cout << std::setw(7) << b;
                std::cout << std::setw(7) << c.exactMatch;
                if (objects.words == 0)  // an imported captioner's words are not grounded in the scene's objects
                    std::cout << "        not measured\n";
                else
                    std::cout << std::setw(20) << objects.mass << std::setw(10) << objects.hitRate << "\n";
            }
            printCaptionSizes(report->captions);
            return;
        }
        for (const auto& r : report->rules) {
            const bool same = (isRule(r.rule, RuleKind::Soft) || isRule(r.rule, RuleKind::Sample)) &&
                              r.rule == traitsOf(report->trainedMode).trainingRule;
            std::cout << "  " << std::left << std::setw(12) << r.rule << std::right << std::setprecision(2)
                      << std::setw(7) << 100 * r.accuracy << "%  (95% CI " << 100 * r.low << "-"
                      << 100 * r.high << ")" << (same ? "  [the training procedure]" : "") << "\n";
        }
    });
}

// What trace and render share: a model, an input, a rule, a seed, a device.
struct RunArgs {
    std::string model, image, sample, rule, device = "auto", out;
    std::uint64_t seed = 1;
    double wordTemperature = 0;
    InputOptions input;
};

void addRunOptions(CLI::App* cmd, RunArgs& a) {
    cmd->add_option("--model", a.model, "checkpoint")->required();
    auto* image = cmd->add_option("--image", a.image, "an image file of any size (resized and cropped as the model says)");
    auto* sample = cmd->add_option("--sample", a.sample, "DATASET:INDEX of the test split");
    image->excludes(sample);
    cmd->add_option("--rule", a.rule,
                    "patch: soft, sample, argmax, topk:K, gumbel:TAU or ksample:K; RAM: sample, mean, "
                    "random or ksample:K; captioner: argmax, soft, sample, gumbel:TAU, beam:K or ksample:K "
                    "(default: the model's deterministic rule, argmax or mean)");
    cmd->add_option("--seed", a.seed, "seed of the draws")->capture_default_str();
    cmd->add_option("--device", a.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--word-temperature", a.wordTemperature,
                    "captioners: sample the words of sample and ksample captions at this temperature "
                    "(0, the default: greedy words)");
    addInputOptions(cmd, a.input);
}

void addTrace(CLI::App& app, int& exitCode) {
    struct Args : RunArgs {
        bool json = false, csv = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("trace", "One run of a model on one image: the trace of every step.");
    addRunOptions(cmd, *a);
    cmd->add_option("--out", a->out, "also save the trace JSON here (atomic)");
    cmd->add_flag("--json", a->json, "print the trace as JSON");
    cmd->add_flag("--csv", a->csv, "print the trace as CSV");
    cmd->callback([a, &exitCode] {
        auto model = loadModelWith(a->model, a->device, a->input);
        if (!model) { exitCode = badInput("trace", model.error()); return; }
        if (auto t = applyWordTemperature(**model, a->wordTemperature); !t) { exitCode = badInput("trace", t.error()); return; }
        auto input = resolveInput(**model, a->image, a->sample);
        if (!input) { exitCode = badInput("trace", input.error()); return; }
        const std::string rule = a->rule.empty() ? (*model)->deterministicRule() : a->rule;
        auto trace = (*model)->trace(input->image, rule, a->seed, input->id, input->truth);
        if (!trace) { exitCode = badInput("trace", trace.error()); return; }
        if (!a->out.empty()) {
            if (auto saved = saveTrace(*trace, a->out); !saved) {
                sayFailure("trace", saved.error());
                exitCode = kExitFailure;
                return;
            }
        }
        if (a->csv) { std::cout << traceToCsv(*trace); return; }
        if (a->json || a->out.empty()) { std::cout << traceToJson(*trace) << "\n"; return; }
        std::cout << "wrote " << a->out << "\n";
    });
}

void addRender(CLI::App& app, int& exitCode) {
    struct Args : RunArgs {
        int delay = 80, scale = 0;
        double opacity = 0.55;
        std::string caption, text, map;
        bool noCaption = false, headView = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "render", "Draw a trace over its image: per-step attention heatmaps, chosen cells, the path "
                  "and step numbers, as a PNG strip or an animated GIF (for slides). A sequence model "
                  "(--text): its alignment matrix as PNG, SVG or CSV, or the playback as a GIF.");
    addRunOptions(cmd, *a);
    cmd->add_option("--text", a->text, "sequence models: the input to translate");
    cmd->add_option("--map", a->map, "Transformers: the map to draw, e.g. \"cross layer 2 head 1\", \"encoder rollout\" "
                                     "(default: the alignment, the last layer's cross-attention mean over heads)");
    cmd->add_flag("--head-view", a->headView, "sequence models, .png: lines between tokens (weight as colour) instead of the matrix");
    cmd->add_option("--delay", a->delay, "GIF: centiseconds per frame")->capture_default_str()
        ->check(CLI::Range(1, 6000));
    cmd->add_option("--scale", a->scale,
                    "pixels per image pixel, 1-16 (default: the image about 240 pixels wide)")
        ->check(wholeNumberIn(1, 16));
    cmd->add_option("--opacity", a->opacity, "heatmap opacity, 0 (image only) to 1 (heatmap only)")
        ->capture_default_str()->check(numberIn(0.0, 1.0));
    auto* caption = cmd->add_option("--caption", a->caption,
                                    "the footer text (default: model, image, rule, seed, prediction and truth)");
    cmd->add_flag("--no-caption", a->noCaption, "no footer")->excludes(caption);
    cmd->add_option("--out", a->out, "run.png (a strip) or run.gif (an animation)")->required();
    cmd->callback([a, &exitCode] {
        const auto dot = a->out.rfind('.');
        const std::string ext = dot == std::string::npos ? "" : a->out.substr(dot);
        if (fileReadsText(a->model)) {
            if (!a->image.empty() || !a->sample.empty()) { exitCode = badInput("render", "a sequence model reads --text, not an image"); return; }
            if (a->text.empty()) { exitCode = badInput("render", "a sequence model needs --text"); return; }
            exitCode = runSeqRender(a->model, a->device, a->text, a->rule, a->seed, a->out, a->scale, a->delay,
                                    a->noCaption ? std::string("-") : a->caption, a->map, a->headView);
            return;
        }
        if (!a->text.empty() || !a->map.empty() || a->headView) {
            exitCode = badInput("render", "--text, --map and --head-view are for sequence models; this model reads --image or --sample");
            return;
        }
        if (ext != ".png" && ext != ".gif") {
            exitCode = badInput("render", "--out must end in .png or .gif");
            return;
        }
        auto model = loadModelWith(a->model, a->device, a->input);
        if (!model) { exitCode = badInput("render", model.error()); return; }
        if (auto t = applyWordTemperature(**model, a->wordTemperature); !t) { exitCode = badInput("render", t.error()); return; }
        auto input = resolveInput(**model, a->image, a->sample);
        if (!input) { exitCode = badInput("render", input.error()); return; }
        RenderOptions sized;
        sized.scale = a->scale;
        if (const auto width = traceStripWidth(input->image.width, input->image.height, (*model)->steps(), sized);
            ext == ".png" && width > kMaxStripWidth) {
            exitCode = badInput("render", "a strip of " + std::to_string((*model)->steps()) + " steps would be " +
                                              std::to_string(width) + " px wide (at most " +
                                              std::to_string(kMaxStripWidth) + "); write a .gif (one frame per step)");
            return;
        }
        const std::string rule = a->rule.empty() ? (*model)->deterministicRule() : a->rule;
        auto trace = (*model)->trace(input->image, rule, a->seed, input->id, input->truth);
        if (!trace) { exitCode = badInput("render", trace.error()); return; }
        RenderOptions options;
        options.scale = a->scale;
        options.heatmapOpacity = a->opacity;
        options.caption = a->noCaption ? "" : !a->caption.empty() ? a->caption : traceCaption(*trace);
        Result<Unit> written = Unit{};
        if (ext == ".gif") {
            written = writeGif(renderTraceFrames(input->image, *trace, options), a->delay, a->out);
        } else {
            written = saveImagePng(renderTraceStrip(input->image, *trace, options), a->out);
        }
        if (!written) {
            sayFailure("render", written.error());
            exitCode = kExitFailure;
            return;
        }
        std::cout << "wrote " << a->out << " (" << trace->steps.size() << " steps, rule " << trace->rule
                  << ", predicted " << trace->output.text << ")\n";
    });
}

}  // namespace

void addStrip(CLI::App& app, int& exitCode) {
    struct Args {
        std::string model, out;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("strip", "Copy a checkpoint without its optimizer state (about a third of the "
                                            "size), for sharing or bundling; it can no longer be resumed.");
    cmd->add_option("--model", a->model, "checkpoint (.pt with its .json sidecar)")->required();
    cmd->add_option("--out", a->out, "the copy (.pt; its sidecar beside it)")->required();
    cmd->callback([a, &exitCode] {
        if (auto done = stripOptimizerState(a->model, a->out); !done) {
            exitCode = badInput("strip", done.error());
            return;
        }
        std::cout << "wrote " << a->out << " (" << std::filesystem::file_size(a->out) << " bytes)\n";
    });
}

void addModelCommands(CLI::App& app, int& exitCode) {
    addStrip(app, exitCode);
    addEval(app, exitCode);
    addTrace(app, exitCode);
    addRender(app, exitCode);
}

}  // namespace saccade::cli
