// saccade-cli compare: repeated stochastic runs against the deterministic rule and soft attention,
// on one image (a run set) or on a dataset (every rule's accuracy, and where sample and the
// deterministic rule disagree).

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/runs/dataset_comparison.h"
#include "analysis/runs/rule_comparison.h"
#include "commands.h"
#include "input_options.h"
#include "models/model_input.h"
#include "shard_option.h"
#include "strict_options.h"
#include "common/atomic_file.h"
#include "common/timing.h"
#include "run_input.h"

namespace saccade::cli {

namespace {

struct CompareArgs {
    std::string model, image, sample, dataset, rules, device = "auto", out, split = "test", shard;
    InputOptions input;
    int runs = 1000, k = 10, bins = 6, top = 5;
    std::int64_t limit = 0;
    std::uint64_t seed = 7;
    double wordTemperature = 0;
    bool json = false;
};

std::string className(const std::vector<std::string>& names, int label) {
    return label >= 0 && label < int(names.size()) ? names[size_t(label)] : std::to_string(label);
}

std::string pathText(const RunSet& set, const PathCount& p) {
    std::ostringstream os;
    os << (set.gridRows > 0 ? "cells" : "location bins");
    for (int cell : p.key) os << " " << cell;
    return os.str();
}

int compareImage(const CompareArgs& a, AttentionModel& model) {
    auto input = resolveInput(model, a.image, a.sample);
    if (!input) return badInput("compare", input.error());
    auto set = model.sampleRuns(input->image, a.runs, a.seed, input->id, input->truth, a.k);
    if (!set) return badInput("compare", set.error());
    if (a.bins < 1 || a.bins > 64) return badInput("compare", "--bins must be 1..64");
    const auto stats = computeRunStats(*set, a.bins);
    const auto json = runSetToJson(*set, stats, a.json ? 2 : -1);
    if (!a.out.empty()) {
        if (auto saved = writeFileAtomic(a.out, json); !saved) {
            sayFailure("compare", saved.error());
            return kExitFailure;
        }
    }
    if (a.json) {
        std::cout << json << "\n";
        return 0;
    }
    const auto& names = set->classNames;
    const bool caption = traitsOf(set->outputKind).referenceScored;
    auto verdict = [&](const Trace& t) {
        std::ostringstream os;
        if (caption) {  // a caption, and whether it is one of the image's valid captions
            os << '"' << t.output.text << '"';
            if (!set->references.empty())
                os << (std::find(set->references.begin(), set->references.end(), t.output.text) != set->references.end()
                           ? " valid" : " not valid");
            return os.str();
        }
        const int label = t.output.label;
        os << className(names, label) << " (p " << std::fixed << std::setprecision(3)
           << t.output.probs[size_t(label)] << ")";
        if (set->truth) os << (label == *set->truth ? " right" : " wrong");
        return os.str();
    };
    std::cout << set->modelId << " on " << set->imageId;
    if (set->truth) std::cout << ", truth " << className(names, *set->truth);
    std::cout << "\n  " << std::left << std::setw(12) << set->deterministicRule << verdict(set->deterministic) << "\n";
    if (set->soft) std::cout << "  " << std::setw(12) << "soft" << verdict(*set->soft) << "\n";
    if (set->ksample) std::cout << "  " << std::setw(12) << set->ksample->rule << verdict(*set->ksample) << "\n";
    std::cout << std::right << std::fixed << std::setprecision(1) << stats.runs << " sampled runs (seeds " << set->seed
              << ".." << set->seed + std::uint64_t(stats.runs) - 1 << "; run i = 'trace --rule sample --seed "
              << set->seed << "+i'), " << set->seconds * 1000 << " ms with the three traces above\n"
              << "  agreement with " << set->deterministicRule << ": " << 100 * stats.agreement << "%";
    if (stats.accuracy) std::cout << "   accuracy: " << 100 * *stats.accuracy << "%";
    std::vector<int> order(stats.labelCounts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return stats.labelCounts[size_t(x)] > stats.labelCounts[size_t(y)]; });
    if (caption) {
        // Distinct captions, one a line, the most frequent first (--top of them).
        std::cout << "\n  distinct captions: " << std::count_if(stats.labelCounts.begin(), stats.labelCounts.end(),
                                                               [](int c) { return c > 0; })
                  << "; most frequent:";
        int shown = 0;
        for (int label : order) {
            if (stats.labelCounts[size_t(label)] == 0 || shown++ == std::max(a.top, 1)) break;
            std::cout << "\n    " << stats.labelCounts[size_t(label)] << "x  \"" << className(names, label) << '"'
                      << (label == stats.deterministicLabel ? " (=" + set->deterministicRule + ")" : "");
        }
        // Per word: how often the sampled cell lay on the object it names (a scene with objects).
        if (!stats.wordHits.empty()) {
            std::cout << "\n  word hit rates (the sampled cell on the object the word names; "
                      << set->deterministicRule << "'s cell in brackets):";
            for (const auto& w : stats.wordHits) {
                std::cout << "\n    " << std::left << std::setw(10) << w.word << std::right;
                if (w.uses)
                    std::cout << std::setw(6) << 100 * w.rate() << "%  of " << w.uses << " uses";
                else
                    std::cout << "  no sampled run used it";
                std::cout << (w.deterministic < 0 ? "" : w.deterministic ? "  (hit)" : "  (miss)");
            }
        }
    } else {
        std::cout << "\n  outputs:";
        for (int label : order)
            if (stats.labelCounts[size_t(label)] > 0)
                std::cout << "  " << className(names, label) << " " << stats.labelCounts[size_t(label)]
                          << (label == stats.deterministicLabel ? " (=" + set->deterministicRule + ")" : "");
    }
    std::cout << "\n  entropy per step (mean +- sd over runs, nats):" << std::setprecision(3);
    for (size_t t = 0; t < stats.entropyMean.size(); ++t)
        if (std::isnan(stats.entropyMean[t]))
            std::cout << "  n/a";  // no policy at this step (a RAM's first glimpse)
        else
            std::cout << "  " << stats.entropyMean[t] << "+-" << stats.entropyStd[t];
    std::cout << "\n  distinct paths: " << stats.paths.size() << "; most common:\n";
    for (int i = 0; i < std::min<int>(a.top, int(stats.paths.size())); ++i) {
        const auto& p = stats.paths[size_t(i)];
        std::cout << "    " << i + 1 << ". " << pathText(*set, p) << ": " << p.count << " runs";
        if (set->truth || caption) std::cout << ", " << std::setprecision(1) << 100.0 * p.correct / p.count << "% right";
        std::cout << " (first: run " << p.firstRun << ", seed " << set->runs[size_t(p.firstRun)].seed << ")\n";
    }
    if (!a.out.empty()) std::cout << "wrote " << a.out << "\n";
    return 0;
}

// A model without sampled runs: its rules side by side (accuracy, mass in box, pointing game, and
// how often two rules' maps peak at the same cell).
int compareRules(const CompareArgs& a, AttentionModel& model, const Dataset& dataset, Split split) {
    if (!a.shard.empty()) return badInput("compare", "--shard splits a sampled comparison; this model has no sampled runs");
    auto rules = a.rules.empty() ? Result<std::vector<std::string>>(defaultRuleComparisonRules(model)) : parseEvalRules(a.rules);
    if (!rules) return badInput("compare", rules.error());
    auto c = compareRulesOnDataset(model, dataset, split, *rules, a.limit, a.seed, consoleProgress("compare"));
    if (!c) return badInput("compare", c.error());
    if (a.json) {
        std::cout << ruleComparisonToJson(*c) << "\n";
        return 0;
    }
    const auto measured = [](const std::optional<double>& v) {
        std::ostringstream os;
        if (v) os << std::fixed << std::setprecision(2) << 100 * *v << "%";
        else os << "not measured";
        return os.str();
    };
    std::cout << c->dataset << " " << c->split << " split, " << c->images << " images (" << c->boxed << " with a box), "
              << std::fixed << std::setprecision(1) << c->seconds << " s; the model has no sampled runs: its rules "
              << "compared (maps of the last step, most attended cell on a " << c->rows << "x" << c->cols << " grid)\n"
              << "  " << std::left << std::setw(12) << "rule" << std::right << std::setw(9) << "accuracy"
              << std::setw(20) << "95% CI" << std::setw(15) << "mass in box" << std::setw(16) << "pointing game\n";
    for (const auto& r : c->rules) {
        std::ostringstream ci;
        ci << std::fixed << std::setprecision(2) << 100 * r.accuracy.low << "-" << 100 * r.accuracy.high;
        std::cout << "  " << std::left << std::setw(12) << r.rule << std::right << std::setprecision(2) << std::setw(8)
                  << 100 * r.accuracy.accuracy << "%" << std::setw(20) << ci.str() << std::setw(15) << measured(r.massInBox)
                  << std::setw(15) << measured(r.pointing) << "\n";
    }
    if (c->agreement.empty()) return 0;  // one rule: no pair to agree
    std::cout << "  same most attended cell:";
    for (const auto& g : c->agreement)
        std::cout << "  " << g.first << " & " << g.second << " " << std::setprecision(2) << 100 * g.fraction << "%";
    std::cout << "\n";
    return 0;
}

int compareDataset(const CompareArgs& a, AttentionModel& model) {
    auto split = parseSplit(a.split);
    if (!split) return badInput("compare", split.error());
    auto dataset = openDatasetFor(model, a.dataset, model.info().seed);
    if (!dataset) return badInput("compare", dataset.error());
    if (!model.hasStochasticRuns()) return compareRules(a, model, **dataset, *split);
    auto rules = a.rules.empty() ? Result<std::vector<std::string>>(defaultComparisonRules(model)) : parseEvalRules(a.rules);
    if (!rules) return badInput("compare", rules.error());
    auto shard = shardOf(a.shard);
    if (!shard) return badInput("compare", shard.error());
    auto c = compareOnDataset(model, **dataset, *split, *rules, a.limit, a.seed, {}, *shard);
    if (!c) return badInput("compare", c.error());
    if (shard->active()) {
        auto fingerprint = runFingerprint(a.model, {(*dataset)->info().name, a.split, a.rules, std::to_string(a.seed),
                                                    std::to_string(a.limit), std::to_string(a.wordTemperature)});
        if (!fingerprint) return badInput("compare", fingerprint.error());
        c.value().report.fingerprint = *fingerprint;
    }
    if (a.json || shard->active()) {
        std::cout << datasetComparisonToJson(*c) << "\n";
        return 0;
    }
    const auto& report = c->report;
    const std::string& det = c->deterministicRule;
    const bool imported = !traitsOf(model.trainedMode()).recorded;
    std::cout << report.dataset << " " << report.split << " split, " << report.labels.size() << " images, "
              << std::fixed << std::setprecision(1) << report.seconds << " s; "
              << (imported ? "an imported model (its training is not known)"
                           : "the model was trained with " + trainingModeName(model.trainedMode()) + " (" + c->trainingRule + " rule)")
              << "\n";
    for (const auto& r : report.rules) {
        std::cout << "  " << std::left << std::setw(12) << r.rule << std::right << std::setprecision(2) << std::setw(7)
                  << 100 * r.accuracy << "%  (95% CI " << 100 * r.low << "-" << 100 * r.high << ")"
                  << (imported ? ""
                      : isTrainingRule(r.rule, c->trainingRule)
                          ? "  [the training rule]"
                          : "  [differs from the training rule: " + c->trainingRule + "]")
                  << "\n";
    }
    std::cout << "  sample and " << det << " disagree on " << c->disagree.size() << " images (" << std::setprecision(2)
              << 100 * c->disagreement << "%)";
    for (size_t i = 0; i < std::min<size_t>(20, c->disagree.size()); ++i) std::cout << (i ? ", " : ": ") << c->disagree[i];
    std::cout << (c->disagree.size() > 20 ? ", ... (all with --json)" : "") << "\n";
    return 0;
}

// bench compare: N runs of one image with their statistics, as the comparison panel computes them.
void addBenchCompare(CLI::App& bench, int& exitCode) {
    struct BenchArgs {
        std::string model, sample, device = "auto";
        int runs = 1000, repeats = 9, warmups = 2;
    };
    auto a = std::make_shared<BenchArgs>();
    auto* cmd = bench.add_subcommand("compare", "Median time of N sampled runs of one image with their statistics "
                                                "(the deterministic, soft and ksample:10 traces included).");
    cmd->add_option("--model", a->model, "checkpoint")->required();
    cmd->add_option("--sample", a->sample, "DATASET:INDEX (default: test image 0 of the model's dataset)");
    cmd->add_option("--runs", a->runs, "runs per set")->capture_default_str();
    cmd->add_option("--repeats", a->repeats, "timed repeats (median)")->capture_default_str()->check(CLI::Range(1, 1000));
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--warmups", a->warmups, "untimed runs before the repeats")->capture_default_str()->check(CLI::Range(0, 100));
    cmd->callback([a, &exitCode] {
        auto model = loadModelWith(a->model, a->device, InputOptions{});
        if (!model) { exitCode = badInput("bench compare", model.error()); return; }
        auto input = resolveInput(**model, "", a->sample.empty() ? (*model)->info().dataset + ":0" : a->sample);
        if (!input) { exitCode = badInput("bench compare", input.error()); return; }
        std::string error;
        std::size_t paths = 0;
        const double ms = medianMs(a->repeats, [&] {
            auto set = (*model)->sampleRuns(input->image, a->runs, 1, input->id, input->truth, 10);
            if (!set) { error = set.error(); return; }
            paths = computeRunStats(*set).paths.size();
        }, a->warmups);
        if (!error.empty()) { exitCode = badInput("bench compare", error); return; }
        std::cout << std::fixed << std::setprecision(1) << (*model)->info().modelType << " model on "
                  << (*model)->deviceName() << ": " << a->runs << " runs of " << input->id << " with statistics: "
                  << ms << " ms median of " << a->repeats << " (" << paths << " distinct paths)\n";
    });
}

}  // namespace

void addCompareCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<CompareArgs>();
    auto* cmd = app.add_subcommand(
        "compare", "Repeated stochastic runs against the deterministic rule and soft attention: on one image "
                   "(--image or --sample: N seeded runs, output histogram, agreement, entropy, distinct paths) "
                   "or on a dataset (--dataset: every rule's accuracy, and where sample and the deterministic "
                   "rule disagree; a model without sampled runs, such as a transformer: its rules' accuracy, mass "
                   "in box, pointing game and how often their maps peak at the same cell).");
    cmd->add_option("--model", a->model, "checkpoint (.pt with its .json sidecar)")->required();
    auto* image = cmd->add_option("--image", a->image, "an image file of any size (resized and cropped as the model says)");
    auto* sample = cmd->add_option("--sample", a->sample, "DATASET:INDEX of the test split");
    auto* dataset = cmd->add_option("--dataset", a->dataset, "compare the rules on this dataset's split");
    image->excludes(sample)->excludes(dataset);
    sample->excludes(dataset);
    cmd->add_option("--runs", a->runs, "one image: sampled runs, 1..10000")->capture_default_str();
    cmd->add_option("--k", a->k, "one image: K of the ksample:K summary")->capture_default_str()->check(wholeNumberIn(1, 10000));
    cmd->add_option("--bins", a->bins, "one image, RAM: location bins per side for paths and visits")
        ->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--top", a->top, "one image: paths listed")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--out", a->out, "one image: also save the run set JSON here (atomic)");
    cmd->add_option("--rules", a->rules,
                    "dataset: comma-separated rules (default: sample, the deterministic rule, ksample:1,2,5,10,20, "
                    "and soft or random glimpses; a model without sampled runs: the rules it offers, e.g. "
                    "attention,head:0,rollout)");
    cmd->add_option("--split", a->split, "dataset: train or test")->capture_default_str();
    cmd->add_option("--limit", a->limit, "dataset: first N images only (default: all)")->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--seed", a->seed, "seed of the first run (run i has seed + i)")->capture_default_str();
    cmd->add_option("--word-temperature", a->wordTemperature,
                    "captioners: the runs sample their words at this temperature too (0: greedy words)");
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", a->json, "print one JSON object");
    addShardOption(cmd, a->shard);
    addInputOptions(cmd, a->input);
    addBenchCompare(*app.get_subcommand("bench"), exitCode);
    cmd->callback([a, &exitCode] {
        if (a->image.empty() && a->sample.empty() && a->dataset.empty()) {
            exitCode = badInput("compare", "give --image FILE, --sample DATASET:INDEX or --dataset NAME");
            return;
        }
        auto model = loadModelWith(a->model, a->device, a->input);
        if (!model) { exitCode = badInput("compare", model.error()); return; }
        if (auto t = applyWordTemperature(**model, a->wordTemperature); !t) { exitCode = badInput("compare", t.error()); return; }
        if (!a->shard.empty() && a->dataset.empty()) {
            exitCode = badInput("compare", "--shard splits a --dataset comparison; one image is not sharded");
            return;
        }
        exitCode = a->dataset.empty() ? compareImage(*a, **model) : compareDataset(*a, **model);
    });
}

}  // namespace saccade::cli
