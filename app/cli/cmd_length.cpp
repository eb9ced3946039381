// length: attention at length. `length fidelity` measures what the efficient variants give up on
// real and random attention inputs; `length view` draws one variant's figure at one length.
#include <iomanip>
#include <iostream>
#include <memory>

#include "analysis/length/length_fidelity.h"
#include "analysis/length/model_attention_inputs.h"
#include "analysis/length/length_view.h"
#include "render/length_render.h"
#include "train/length_task.h"
#include "commands.h"
#include "common/atomic_file.h"
#include "common/parse.h"
#include "common/samples_dir.h"
#include "io/output_guard.h"
#include "length_options.h"
#include "run_input.h"
#include "strict_options.h"

namespace saccade::cli {
namespace {

struct FidelityArgs {
    FidelityOptions options;
    std::vector<std::string> models;
    std::string random = "1024,4096", positional = "4096";
    std::string variants = "all";
    std::int64_t dim = 64, heads = 2, count = 32;
    std::uint64_t seed = 0;
    std::string out;
    bool json = false;
    CLI::Option *randomOption = nullptr, *positionalOption = nullptr;
};

using FidelityResults = std::vector<std::pair<FidelitySource, std::vector<VariantFidelity>>>;

void printFidelity(const FidelityResults& results, const FidelityOptions& options) {
    std::cout << "what the variants give up against exact attention (budget " << options.budget
              << " of the keys per query for the patterned variants; performer " << options.features << " features)\n";
    for (const auto& [source, rows] : results) {
        std::cout << "\n" << source.name << ": n = " << source.q.size(2) << ", " << (rows.empty() ? 0 : rows[0].rows)
                  << " rows\n"
                  << std::left << std::setw(18) << "  variant" << std::right << std::setw(10) << "keys/row" << std::setw(10)
                  << "mean TV" << std::setw(9) << "max TV" << std::setw(8) << "top-1" << std::setw(12) << "out error\n";
        for (const auto& f : rows)
            std::cout << "  " << std::left << std::setw(16) << attentionVariantName(f.variant) << std::right << std::fixed
                      << std::setprecision(1) << std::setw(10) << f.keysPerQuery << std::setprecision(3) << std::setw(10)
                      << f.meanTv << std::setw(9) << f.maxTv << std::setprecision(1) << std::setw(7)
                      << 100 * f.top1Agreement << "%" << std::setprecision(3) << std::setw(11) << f.meanOutputError << "\n";
        for (const auto& f : rows)
            if (f.hardSampleInTopK)
                std::cout << "  top_k keeps the " << f.options.topK << " best keys of every row, holding "
                          << std::setprecision(1) << 100 * *f.topKMass << "% of the exact mass; one hard-attention "
                          << "draw per row lands among them in " << 100 * *f.hardSampleInTopK << "% of rows\n";
    }
}

int runFidelity(FidelityArgs& a) {
    const auto variants = parseVariantList(a.variants);
    if (!variants) return badInput("length fidelity", variants.error());
    a.options.variants = *variants;
    if (!a.out.empty())
        if (const auto target = resolveSaveTarget(a.out); !target) return badInput("length fidelity", target.error());
    // No source named: the bundled Transformers and ViT and the default synthetic ones; else only
    // the named ones.
    const bool named = !a.models.empty() || a.randomOption->count() > 0 || a.positionalOption->count() > 0;
    if (!named) {
        const auto dir = findSamplesDir();
        for (const char* m : {"vit-translated-fashion60.pt", "seq-dates-transformer.pt", "seq-toy-translation-transformer.pt"})
            if (!dir.empty()) a.models.push_back(dir + "/models/" + m);
    }
    for (std::size_t i = 0; i < a.models.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (samePlace(a.models[i], a.models[j]))
                return badInput("length fidelity", "--model '" + a.models[i] + "' is given twice: each model's heads are measured once");
    std::vector<FidelitySource> sources;
    for (const auto& m : a.models) {
        auto s = modelFidelitySources(m, a.count);
        if (!s) return badInput("length fidelity", s.error());
        sources.insert(sources.end(), s->begin(), s->end());
    }
    if ((!named || a.randomOption->count() > 0) && a.random != "none") {
        const auto lengths = parseIntegerList(a.random, "--random", 2, 1 << 16);
        if (!lengths) return badInput("length fidelity", lengths.error());
        for (auto n : *lengths) sources.push_back(randomFidelitySource(n, a.dim, a.heads, a.seed));
    }
    if ((!named || a.positionalOption->count() > 0) && a.positional != "none") {
        if (a.dim % 2 != 0) return badInput("length fidelity", "positional sources need an even --dim");
        const auto lengths = parseIntegerList(a.positional, "--positional", 2, 1 << 16);
        if (!lengths) return badInput("length fidelity", lengths.error());
        for (auto n : *lengths) sources.push_back(positionalFidelitySource(n, a.dim, a.heads, a.seed));
    }
    if (sources.empty()) return badInput("length fidelity", "no sources: give --model, --random or --positional");
    FidelityResults results;
    for (const auto& s : sources) {
        auto r = measureFidelity(s, a.options);
        if (!r) return badInput("length fidelity", r.error());
        results.emplace_back(s, *r);
    }
    const auto json = fidelityToJson(results, a.options);
    if (!a.out.empty()) {
        if (auto saved = writeFileAtomic(a.out, json + "\n"); !saved) return badInput("length fidelity", saved.error());
    }
    if (a.json) std::cout << json << "\n";
    else printFidelity(results, a.options);
    return 0;
}

void addFidelity(CLI::App& length, int& exitCode) {
    auto a = std::make_shared<FidelityArgs>();
    auto* cmd = length.add_subcommand(
        "fidelity",
        "What each efficient variant gives up, row by row against exact attention: total variation, top-1 agreement "
        "and output error, on a Transformer's or ViT's own queries and keys (--model), on long random sequences "
        "(--random) and on long sequences with a position code (--positional). Default: the bundled ViT and "
        "Transformers, random sequences of 1,024 and 4,096 and a positional one of 4,096.");
    cmd->add_option("--model", a->models, "a Transformer or ViT checkpoint (repeatable)")->check(regularFile());
    a->randomOption = cmd->add_option("--random", a->random, "lengths of random sources, comma-separated, or none (the default runs only when no source is named)")->capture_default_str();
    a->positionalOption = cmd->add_option("--positional", a->positional,
                    "lengths of positional sources (attention peaking near the diagonal), comma-separated, or none")
        ->capture_default_str();
    cmd->add_option("--count", a->count, "test images or sentences per model")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--dim", a->dim, "random sources: width of each head")->capture_default_str()->check(wholeNumberIn(1, 1024));
    cmd->add_option("--heads", a->heads, "random sources: heads")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--seed", a->seed, "random sources: seed")->capture_default_str();
    cmd->add_option("--budget", a->options.budget, "keys per query the patterned variants may see, as a fraction of n")
        ->capture_default_str()->check(numberIn(1e-6, 1));
    cmd->add_option("--features", a->options.features, "performer: random features")->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--feature-seed", a->options.seed, "performer: seed of the features")->capture_default_str();
    cmd->add_option("--variants", a->variants, "comma-separated variants, or all")->capture_default_str();
    cmd->add_option("--out", a->out, "also save the JSON to this file (atomic)");
    cmd->add_flag("--json", a->json, "print JSON (schema saccade.length-fidelity)");
    cmd->callback([a, &exitCode] { exitCode = runFidelity(*a); });
}

struct ViewArgs {
    LengthViewOptions view;
    std::string variant = "local", curve, inputs = "positional";
    std::vector<std::string> outs;
    int width = 1200, height = 420;
    bool json = false;
};

int runView(ViewArgs& a) {
    const auto variant = parseAttentionVariant(a.variant);
    if (!variant) return badInput("length view", variant.error());
    a.view.variant = *variant;
    a.view.positional = a.inputs == "positional";
    if (!a.curve.empty()) {
        const auto curve = parseIntegerList(a.curve, "--curve", 16, 65536);
        if (!curve) return badInput("length view", curve.error());
        for (std::size_t i = 1; i < curve->size(); ++i)
            if ((*curve)[i] <= (*curve)[i - 1])
                return badInput("length view", "--curve must rise: " + std::to_string((*curve)[i]) + " follows " +
                                                   std::to_string((*curve)[i - 1]));
        a.view.curveLengths = *curve;
    }
    if (const auto problem = checkLengthView(a.view); !problem.empty()) return badInput("length view", problem);
    std::vector<std::pair<std::string, std::string>> targets;  // path, format: all checked before any work
    for (const auto& out : a.outs) {
        const auto format = lengthViewFormat(out);
        if (!format) return badInput("length view", format.error());
        const auto target = resolveSaveTarget(out);
        if (!target) return badInput("length view", target.error());
        targets.emplace_back(out, *format);
    }
    const auto view = computeLengthView(a.view, consoleProgress("measuring"));
    if (!view) return badInput("length view", view.error());
    for (const auto& [path, format] : targets) {
        const auto bytes = lengthViewBytes(*view, format, a.width, a.height);
        if (bytes.empty()) return badInput("length view", "could not encode " + path);
        if (auto saved = writeFileAtomic(path, bytes); !saved) return badInput("length view", saved.error());
    }
    if (a.json) {
        std::cout << lengthViewToJson(*view) << "\n";
        return 0;
    }
    std::cout << lengthViewTitle(*view) << "\n  keys per query " << view->keysPerQuery
              << "; total variation from exact attention: mean " << view->meanTv << ", max " << view->maxTv
              << "; top-1 agreement " << 100 * view->top1Agreement << "%; output error " << view->meanOutputError << "\n";
    for (const auto& p : view->curve)
        std::cout << "  n = " << p.n << ": " << p.ms << " ms (median of " << a.view.repeats << "; " << p.fastestMs << " to "
                  << p.slowestMs << ")" << (p.peakMb ? ", " + std::to_string(*p.peakMb) + " MB" : "") << "\n";
    auto slope = [](const std::optional<double>& s, const std::string& why) {
        return s ? std::to_string(*s) : "none (" + why + ")";
    };
    std::cout << "  slope of time against n: " << slope(view->slope, view->slopeNote) << "\n";
    if (a.view.variant != AttentionVariant::Full && !view->fullCurve.empty())
        std::cout << "  full attention's slope: " << slope(view->fullSlope, view->fullSlopeNote) << "\n";
    for (const auto& [path, format] : targets) std::cout << "  wrote " << path << "\n";
    return 0;
}

void addLengthView(CLI::App& length, int& exitCode) {
    auto a = std::make_shared<ViewArgs>();
    auto* cmd = length.add_subcommand(
        "view",
        "One variant at one length, as the GUI's Length page draws it: its sparsity pattern, each query row's total "
        "variation from exact attention, and time and memory against length (log-log, measured now, beside full attention).");
    cmd->add_option("--variant", a->variant, "full, memory_efficient, local, block_sparse, top_k, linear or performer")
        ->capture_default_str();
    cmd->add_option("--n", a->view.n, "the length")->capture_default_str()->check(wholeNumberIn(16, 65536));
    addVariantOptions(cmd, a->view.options);
    cmd->add_option("--dim", a->view.dim, "width of each head")->capture_default_str()->check(wholeNumberIn(1, 1024));
    cmd->add_option("--heads", a->view.heads, "heads")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--seed", a->view.seed, "seed of the queries, keys and values")->capture_default_str();
    cmd->add_option("--inputs", a->inputs, "positional (attention peaks near the diagonal, as over sequences) or random")
        ->capture_default_str()->check(CLI::IsMember({"positional", "random"}));
    cmd->add_option("--curve", a->curve, "lengths of the cost curves, rising (default: powers of two from 256 to --n)")
        ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("is empty: give rising lengths, or leave it out") : std::string(); }, ""));
    cmd->add_option("--repeats", a->view.repeats, "timed repeats per point (median)")->capture_default_str()->check(wholeNumberIn(1, 20));
    cmd->add_option("--out", a->outs, "save as .png, .svg, .csv or .json (repeatable; checked before measuring)");
    cmd->add_option("--width", a->width, "figure width in pixels")->capture_default_str()->check(wholeNumberIn(720, 4000));
    cmd->add_option("--height", a->height, "figure height in pixels")->capture_default_str()->check(wholeNumberIn(300, 3000));
    cmd->add_flag("--json", a->json, "print the view as JSON (schema saccade.length-view)");
    cmd->callback([a, &exitCode] { exitCode = runView(*a); });
}

struct TaskArgs {
    LengthTaskOptions task;
    std::string variants = "all", testLengths = "512,1024,2048,4096", out;
    bool json = false;
};

void printTask(const std::vector<LengthTaskResult>& results, const LengthTaskOptions& o) {
    std::cout << "associative recall, trained at n = 16 to " << o.trainLength << " for "
              << (o.seconds > 0 ? std::to_string(int(o.seconds)) + " s" : std::to_string(o.steps) + " steps")
              << " per variant; accuracy on " << o.testCount << " test sequences per length (chance 10%)\n"
              << std::left << std::setw(18) << "variant" << std::right << std::setw(7) << "steps" << std::setw(8) << "loss";
    for (auto n : o.testLengths) std::cout << std::setw(9) << ("n=" + std::to_string(n));
    std::cout << "\n";
    for (const auto& r : results) {
        std::cout << std::left << std::setw(18) << attentionVariantName(r.variant) << std::right << std::setw(7) << r.steps
                  << std::fixed << std::setprecision(3) << std::setw(8) << r.finalLoss << std::setprecision(1);
        for (const auto& p : r.test) std::cout << std::setw(8) << 100 * p.accuracy << "%";
        std::cout << "\n";
    }
}

int runTask(TaskArgs& a) {
    const auto variants = parseVariantList(a.variants);
    if (!variants) return badInput("length task", variants.error());
    const auto lengths = parseIntegerList(a.testLengths, "--test-lengths", 2, 1 << 16);
    if (!lengths) return badInput("length task", lengths.error());
    a.task.testLengths = *lengths;
    for (auto v : *variants) {
        auto o = a.task;
        o.variant = v;
        if (const auto problem = checkLengthTask(o); !problem.empty()) return badInput("length task", problem);
    }
    if (!a.out.empty())
        if (const auto target = resolveSaveTarget(a.out); !target) return badInput("length task", target.error());
    std::vector<LengthTaskResult> results;
    for (auto v : *variants) {
        auto o = a.task;
        o.variant = v;
        auto r = runLengthTask(o, consoleProgress(attentionVariantName(v)));
        if (!r) return badInput("length task", r.error());
        results.push_back(*r);
    }
    const auto json = lengthTaskToJson(a.task, results);
    if (!a.out.empty())
        if (auto saved = writeFileAtomic(a.out, json + "\n"); !saved) return badInput("length task", saved.error());
    if (a.json) std::cout << json << "\n";
    else printTask(results, a.task);
    return 0;
}

void addTask(CLI::App& length, int& exitCode) {
    auto a = std::make_shared<TaskArgs>();
    auto* cmd = length.add_subcommand(
        "task",
        "A long-range task where length matters (associative recall: the first token asks for one of 16 keys, one "
        "other token anywhere holds it, the answer is that token's digit): a small Transformer trained under each variant for the same time, then its "
        "accuracy at each test length. Use --threads 1 for equal time on one core, --steps N (and --seconds 0) for "
        "a reproducible run.");
    cmd->add_option("--variants", a->variants, "comma-separated variants, or all")->capture_default_str();
    cmd->add_option("--seconds", a->task.seconds, "training time per variant (0: --steps only)")->capture_default_str()->check(numberIn(0, 86400));
    cmd->add_option("--steps", a->task.steps, "training steps per variant (0: no cap)")->capture_default_str()->check(wholeNumberIn(0, 100000000));
    cmd->add_option("--train-length", a->task.trainLength, "training sequence length")->capture_default_str()->check(wholeNumberIn(2, 65536));
    cmd->add_option("--test-lengths", a->testLengths, "test sequence lengths, comma-separated")->capture_default_str();
    cmd->add_option("--test-count", a->task.testCount, "test sequences per length")->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--batch", a->task.batch, "training batch")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--dim", a->task.dim, "model width")->capture_default_str()->check(wholeNumberIn(2, 1024));
    cmd->add_option("--heads", a->task.heads, "attention heads")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--layers", a->task.layers, "layers")->capture_default_str()->check(wholeNumberIn(1, 16));
    cmd->add_option("--ff", a->task.ff, "feed-forward width")->capture_default_str()->check(wholeNumberIn(1, 8192));
    cmd->add_option("--lr", a->task.learningRate, "Adam's learning rate")->capture_default_str()->check(numberIn(1e-6, 1));
    cmd->add_option("--seed", a->task.seed, "seed of the weights and of the training and test data")->capture_default_str();
    addVariantOptions(cmd, a->task.options);
    cmd->add_option("--out", a->out, "also save the JSON to this file (atomic; checked before training)");
    cmd->add_flag("--json", a->json, "print JSON (schema saccade.length-task)");
    cmd->callback([a, &exitCode] { exitCode = runTask(*a); });
}

}  // namespace

void addLengthCommand(CLI::App& app, int& exitCode) {
    auto* length = app.add_subcommand("length", "Attention at length: what the efficient variants give up, and their figure.");
    length->require_subcommand(1);
    addFidelity(*length, exitCode);
    addLengthView(*length, exitCode);
    addTask(*length, exitCode);
}

}  // namespace saccade::cli
