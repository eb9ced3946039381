// saccade-cli adequacy: which images are inadequate observations? Per test image, signals that
// need no ground truth (agreement of sampled runs with the deterministic rule, entropy and mutual
// information of the runs' outputs, spread of where they looked, the deterministic confidence and
// entropy, agreement under small seeded shifts: a model without sampled runs gets the last four),
// and for each signal the risk-coverage curve of abstaining on it, its area, and the coverage
// reached at target accuracies.

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>

#include "analysis/runs/adequacy.h"
#include "commands.h"
#include "input_options.h"
#include "models/model_input.h"
#include "shard_option.h"
#include "common/atomic_file.h"
#include "common/parse.h"
#include "run_input.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

struct AdequacyArgs {
    std::string model, dataset, split = "test", targets = "0.95,0.99", signal, out, device = "auto", shard;
    InputOptions input;
    AdequacyOptions options;
    int flagged = 10;
    bool json = false;
};

std::string valueText(double v, const AdequacySignalInfo& info) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(info.unit == std::string("pixels") ? 1 : 3) << v;
    return os.str();
}

// One line per signal: which side is adequate, the AURC, and the coverage (threshold) per target.
void printCurves(const std::vector<SignalCurve>& curves, const std::vector<double>& targets,
                 const std::function<std::string(AdequacySignal)>& why) {
    std::cout << "  " << std::left << std::setw(19) << "signal" << " " << std::setw(9) << "adequate" << std::setw(9)
              << "AURC";
    for (double t : targets) {
        std::ostringstream head;
        head << "coverage@" << std::fixed << std::setprecision(1) << 100 * t << "% (threshold)";
        std::cout << std::setw(27) << head.str();
    }
    std::cout << std::right << "\n";
    for (const auto& c : curves) {
        const auto& info = signalInfo(c.signal);
        std::cout << "  " << std::left << std::setw(19) << info.key << " " << std::setw(9)
                  << (info.higherIsAdequate ? "higher" : "lower") << std::right;
        if (!c.available) {
            std::cout << "not measured (" << why(c.signal) << ")\n";
            continue;
        }
        std::cout << std::fixed << std::setprecision(4) << std::setw(6) << c.aurc << "   ";
        for (const auto& t : c.targets) {
            std::ostringstream cell;
            cell << std::fixed << std::setprecision(1) << 100 * t.coverage << "% ("
                 << (t.threshold ? (info.higherIsAdequate ? ">= " : "<= ") + valueText(*t.threshold, info) : "none") << ")";
            std::cout << std::left << std::setw(27) << cell.str() << std::right;
        }
        std::cout << "\n";
    }
}

void printReport(const AdequacyReport& r, const AdequacyArgs& a, const AttentionModel& model) {
    std::cout << std::fixed << std::setprecision(1) << r.dataset << " " << r.split << " split, " << r.images.size();
    if (r.runs > 0)
        std::cout << " images x " << r.runs << " sampled runs (seeds " << r.seed << ".." << r.seed + std::uint64_t(r.runs) - 1
                  << " on every image)";
    else
        std::cout << " images, no sampled runs (the model has none: its deterministic traces only)";
    if (r.shifts > 0)
        std::cout << ", " << r.shifts << " shifted copies each (up to " << r.maxShift << " px, seed " << r.seed << ")";
    std::cout << ", " << r.seconds << " s\n"
              << "  deployment rule " << r.deploymentRule << ": accuracy " << std::setprecision(2) << 100 * r.accuracy
              << "% at full coverage"
              << (r.runs == 0 ? ""  // no sampled runs: its answer does not depend on a rule
                  : r.deploymentDiffers() ? "  [differs from the training rule: " + r.trainingRule + "]"
                                          : "  [the training rule]")
              << "\n";
    // Why a signal was not measured: no sampled runs, no shifted copies, or not defined for the model.
    const auto why = [&](AdequacySignal s) -> std::string {
        const bool shift = s == AdequacySignal::ShiftAgreement || s == AdequacySignal::ShiftLook;
        const bool run = s != AdequacySignal::Confidence && s != AdequacySignal::PredictionEntropy && !shift;
        if (run && r.runs == 0) return "needs sampled runs; the model has none";
        if (shift && r.shifts == 0) return "no shifted copies: --shifts N";
        return "not defined for " + outputKindName(model.outputKind()) + " models";
    };
    printCurves(r.curves, a.options.targets, why);
    std::cout << std::setprecision(4) << "  references: oracle AURC " << r.oracleAurc << " (every error ranked last), "
              << "random " << r.randomAurc << "\n";
    if (!r.wordCurves.empty()) {
        std::size_t words = 0;
        for (const auto& im : r.images) words += im.words.size();
        std::cout << "  per word of the " << r.deploymentRule << " captions (" << words << " words, "
                  << std::setprecision(1) << 100 * r.wordAccuracy
                  << "% right: some valid caption has the word at that position):\n";
        printCurves(r.wordCurves, a.options.targets, [](AdequacySignal) { return std::string("not defined for single words"); });
    }
    if (r.bestSignal.empty()) return;
    std::cout << "  best signal on this model and split: " << r.bestSignal << "\n";
    const auto signal = a.signal.empty() ? *parseAdequacySignal(r.bestSignal) : *parseAdequacySignal(a.signal);
    const auto& info = signalInfo(signal);
    std::vector<size_t> order(r.images.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        const double vx = r.images[x].signals[signal], vy = r.images[y].signals[signal];
        return info.higherIsAdequate ? vx < vy : vx > vy;
    });
    const int shown = std::min<int>(a.flagged, int(order.size()));
    if (shown == 0) return;
    if (r.runs > 0)
        std::cout << "  least adequate by " << info.key << " (open one: saccade-cli compare --model M --sample " << r.dataset
                  << ":INDEX --runs " << r.runs << " --seed " << r.seed << "):\n";
    else
        std::cout << "  least adequate by " << info.key << " (open one: saccade-cli trace --model M --sample " << r.dataset
                  << ":INDEX):\n";
    const auto names = model.classNames();
    for (int k = 0; k < shown; ++k) {
        const auto& im = r.images[order[size_t(k)]];
        std::cout << "    " << std::setw(6) << im.index << "  " << info.key << " " << valueText(im.signals[signal], info)
                  << "  " << (im.correct ? "right" : "wrong") << "  ";
        if (traitsOf(r.outputKind).referenceScored) {
            std::cout << '"' << im.caption << '"';
        } else {
            auto name = [&](int c) { return c >= 0 && c < int(names.size()) ? names[size_t(c)] : std::to_string(c); };
            std::cout << name(im.prediction) << " (truth " << name(im.truth) << ")";
        }
        std::cout << "\n";
    }
}

int runAdequacy(AdequacyArgs& a) {
    auto targets = parseNumberList(a.targets, "--targets");
    if (!targets) return badInput("adequacy", targets.error());
    if (targets->empty()) return badInput("adequacy", "--targets needs at least one accuracy, e.g. 0.95,0.99");
    for (double t : *targets)
        if (!(t > 0 && t <= 1)) return badInput("adequacy", "--targets: every accuracy must be in (0, 1], e.g. 0.95");
    a.options.targets = *targets;
    if (!a.signal.empty() && !parseAdequacySignal(a.signal)) {
        std::string known;
        for (const auto& s : adequacySignals()) known += (known.empty() ? "" : ", ") + std::string(s.key);
        return badInput("adequacy", "--signal '" + a.signal + "' is not a signal (use one of " + known + ")");
    }
    auto split = parseSplit(a.split);
    if (!split) return badInput("adequacy", split.error());
    if (!a.out.empty())
        if (auto ok = resolveSaveTarget(a.out); !ok) return badInput("adequacy", ok.error());
    auto model = loadModelWith(a.model, a.device, a.input);
    if (!model) return badInput("adequacy", model.error());
    auto dataset = openDatasetFor(**model, a.dataset.empty() ? (*model)->info().dataset : a.dataset, (*model)->info().seed);
    if (!dataset) return badInput("adequacy", dataset.error());
    auto shard = shardOf(a.shard);
    if (!shard) return badInput("adequacy", shard.error());
    if (shard->active() && !a.out.empty())
        return badInput("adequacy", "a shard prints its JSON for 'saccade-cli merge', which writes --out; drop --out here");
    auto options = a.options;
    options.shard = *shard;
    auto report = measureAdequacy(**model, **dataset, *split, options, consoleProgress("adequacy"));
    if (!report) return badInput("adequacy", report.error());
    if (shard->active()) {
        auto fingerprint = runFingerprint(a.model, {(*dataset)->info().name, a.split, a.targets,
                                                    std::to_string(a.options.limit), std::to_string(a.options.runs),
                                                    std::to_string(a.options.seed), std::to_string(a.options.shifts),
                                                    std::to_string(a.options.maxShift)});
        if (!fingerprint) return badInput("adequacy", fingerprint.error());
        report.value().fingerprint = *fingerprint;
        std::cout << adequacyReportToJson(*report) << "\n";
        return 0;
    }
    if (!a.signal.empty() && !report->curves[size_t(*parseAdequacySignal(a.signal))].available)
        return badInput("adequacy", "--signal " + a.signal + " was not measured on this model (" +
                                        (report->runs == 0 ? "it has no sampled runs" : outputKindName(report->outputKind) + " model") + ")");
    const auto json = adequacyReportToJson(*report, a.json ? 2 : -1);
    if (!a.out.empty()) {
        if (auto saved = writeFileAtomic(a.out, json + "\n"); !saved) {
            sayFailure("adequacy", saved.error());
            return kExitFailure;
        }
    }
    if (a.json)
        std::cout << json << "\n";
    else
        printReport(*report, a, **model);
    if (!a.out.empty() && !a.json) std::cout << "wrote " << a.out << "\n";
    return 0;
}

}  // namespace

void addAdequacyCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<AdequacyArgs>();
    auto* cmd = app.add_subcommand(
        "adequacy",
        "Inadequate observations: per test image, signals that need no ground truth (agreement of N sampled runs "
        "with the deterministic rule, entropy and mutual information of their outputs, spread of where they "
        "looked, the deterministic confidence and entropy; on any model, agreement under small seeded shifts of "
        "the image), and per signal the risk-coverage curve of abstaining on it, its "
        "area (AURC, lower is better) and the coverage reached at target accuracies. At full coverage the "
        "accuracy is the deterministic rule's, as in 'eval'.");
    cmd->add_option("--model", a->model, "checkpoint (.pt with its .json sidecar)")->required();
    cmd->add_option("--dataset", a->dataset, "dataset to measure on (default: the model's)");
    cmd->add_option("--split", a->split, "test or train")->capture_default_str();
    cmd->add_option("--limit", a->options.limit, "first images of the split (0: all)")
        ->capture_default_str()->check(wholeNumberIn(0, 1000000000));
    cmd->add_option("--runs", a->options.runs, "sampled runs per image")->capture_default_str()->check(wholeNumberIn(2, 10000));
    cmd->add_option("--shifts", a->options.shifts,
                    "shifted copies per image for shift-agreement and shift-look (default: 8 on a model without "
                    "sampled runs, 0 on the others)")->check(wholeNumberIn(0, 1000));
    cmd->add_option("--max-shift", a->options.maxShift, "largest shift of a copy, pixels per axis")
        ->capture_default_str()->check(wholeNumberIn(1, 16));
    cmd->add_option("--seed", a->options.seed, "first run seed (run i of every image has seed + i); also the shifts'")
        ->capture_default_str();
    cmd->add_option("--targets", a->targets, "target accuracies for the coverage figures, comma-separated")
        ->capture_default_str();
    cmd->add_option("--signal", a->signal, "signal whose least adequate images are listed (default: the best)");
    cmd->add_option("--flagged", a->flagged, "least adequate images to list")->capture_default_str()->check(wholeNumberIn(0, 100000));
    cmd->add_option("--out", a->out, "also write the JSON report to this file (atomically)");
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", a->json, "print the report as JSON (schema saccade.adequacy)");
    addShardOption(cmd, a->shard);
    addInputOptions(cmd, a->input);
    cmd->footer("Examples:\n"
                "  saccade-cli adequacy --model samples/models/patch-hard-fashion60.pt --limit 500 --runs 100\n"
                "  saccade-cli adequacy --model samples/models/ram-fashion60.pt --limit 200 --runs 50 --json --out adequacy.json");
    cmd->callback([a, &exitCode] { exitCode = runAdequacy(*a); });
}

}  // namespace saccade::cli
