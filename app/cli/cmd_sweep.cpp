// saccade-cli sweep: a probe object moved pixel by pixel across the model's cells (patch grid)
// or glimpse size, with the deterministic rule and N stochastic runs at every position: a failure
// map of accuracy, hit rate and attention mass, the worst positions, and a PNG of the map. With
// --vary size or --vary distractors, the same sweep at each value, summarised.

#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <tuple>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/runs/boundary_sweep.h"
#include "analysis/runs/caption_sweep.h"
#include "commands.h"
#include "input_options.h"
#include "shard_option.h"
#include "strict_options.h"
#include "common/parse.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "models/model_input.h"
#include "render/sweep_render.h"
#include "run_input.h"

namespace saccade::cli {

namespace {

struct SweepArgs {
    std::string model, device = "auto", object = "item", dataset, dx, dy, out, metric, vary, values, shard;
    int size = 0, runs = kSweepRuns, distractors = 0, top = 10;
    std::int64_t item = 0;
    std::uint64_t seed = 1;
    bool json = false;
    std::string patchOnlyGiven;  ///< options given that only a patch or glimpse sweep reads
};

std::string percent(double v) {
    if (v < 0) return "   -  ";
    std::ostringstream os;
    os << std::fixed << std::setprecision(1) << std::setw(5) << 100 * v << "%";
    return os.str();
}

void printSweep(const SweepResult& r, SweepMetric worstBy, int top) {
    std::cout << std::fixed << std::setprecision(1) << r.points.size() << " positions, dx " << r.probe.dxMin << ".."
              << r.probe.dxMax << ", dy " << r.probe.dyMin << ".." << r.probe.dyMax << " from the grid lines at x = "
              << r.anchorX << ", y = " << r.anchorY << " (cell " << r.probe.cellSize << " px, object "
              << r.probe.objectSize << " px), " << r.runs << " runs each, " << r.seconds << " s\n"
              << "  mean " << r.deterministicRule << " accuracy " << percent(meanSweepValue(r, SweepMetric::DeterministicAccuracy))
              << ", sample accuracy " << percent(meanSweepValue(r, SweepMetric::SampleAccuracy)) << ", hit rate "
              << percent(meanSweepValue(r, SweepMetric::HitRate)) << ", " << r.deterministicRule << " hits "
              << percent(meanSweepValue(r, SweepMetric::DeterministicHit)) << ", attention mass on the object "
              << percent(meanSweepValue(r, SweepMetric::Mass)) << "\n"
              << "  worst positions by " << sweepMetricName(worstBy) << ":\n"
              << "     dx   dy  " << std::setw(8) << r.deterministicRule << "   sample   hit rate   mass\n";
    for (size_t i : worstPoints(r, worstBy, size_t(top))) {
        const auto& p = r.points[i];
        std::cout << "  " << std::setw(5) << p.dx << std::setw(5) << p.dy << "  " << std::setw(8)
                  << (p.truth < 0 ? "-" : p.deterministicLabel == p.truth ? "right" : "wrong") << "   "
                  << percent(p.sampleAccuracy) << "   " << percent(p.sampleRuns ? p.hitRate : -1) << "   "
                  << percent(p.mass) << "\n";
    }
}

// A captioner: a scene object moved across a grid line; captions and the colour word per offset.
int runCaptionSweep(AttentionModel& m, const SweepArgs& a) {
    if (!a.patchOnlyGiven.empty())
        return badInput("sweep", "a captioner's sweep moves one scene object along x and prints its captions; " +
                                     a.patchOnlyGiven + " (for patch and glimpse models) does not apply");
    CaptionSweepOptions o;
    o.object = a.object == "item" ? "small red circle" : a.object;
    o.side = a.size;
    o.runs = a.runs;
    o.seed = a.seed;
    o.textured = m.info().dataset == "scenes96";
    if (!a.dx.empty()) {
        auto dx = parseIntRange(a.dx, "--dx");
        if (!dx) return badInput("sweep", dx.error());
        o.dxMin = dx->lo, o.dxMax = dx->hi;
    }
    auto shard = shardOf(a.shard);
    if (!shard) return badInput("sweep", shard.error());
    o.shard = *shard;
    auto sweep = sweepCaptionProbe(m, o, consoleProgress("sweep"));
    if (!sweep) return badInput("sweep", sweep.error());
    if (shard->active()) {
        auto fingerprint = runFingerprint(a.model, {o.object, std::to_string(a.size), a.dx, std::to_string(a.runs),
                                                    std::to_string(a.seed)});
        if (!fingerprint) return badInput("sweep", fingerprint.error());
        sweep.value().fingerprint = *fingerprint;
    }
    if (a.json || shard->active()) {
        std::cout << captionSweepToJson(*sweep) << "\n";
        return 0;
    }
    const auto& s = *sweep;
    int colour = 0;
    for (const auto& p : s.points) colour += p.colourRight;
    std::cout << std::fixed << std::setprecision(1) << "\"" << s.object << "\", " << s.side << " px, moved across the grid line at x = "
              << s.line << " (cells of " << s.cell << " px), " << s.points.size() << " positions, " << s.runs
              << " sampled captions each, " << s.seconds << " s\n  the " << s.deterministicRule
              << " caption names the right colour at " << colour << " of " << s.points.size() << " positions\n"
              << "     dx  " << std::left << std::setw(36) << (s.deterministicRule + " caption") << std::right
              << " colour   mass    hit  runs: colour  exact\n";
    for (const auto& p : s.points)
        std::cout << "  " << std::setw(5) << p.dx << "  " << std::left << std::setw(36) << p.caption.substr(0, 36)
                  << std::right << std::setw(7) << (p.colourRight ? "right" : "WRONG") << "  " << percent(p.mass)
                  << std::setw(6) << (p.hit ? "yes" : "no") << "        " << percent(p.runsColourRight) << "  "
                  << percent(p.runsExact) << "\n";
    return 0;
}

int runSweep(const SweepArgs& a) {
    auto model = loadModelWith(a.model, a.device, InputOptions{});
    if (!model) return badInput("sweep", model.error());
    auto& m = **model;
    if (!a.shard.empty() && !a.out.empty())
        return badInput("sweep", "a shard prints its JSON for 'saccade-cli merge'; draw the map from one unsharded "
                                 "run, or drop --out here");
    if (!a.shard.empty() && !a.vary.empty())
        return badInput("sweep", "--shard splits the positions of one sweep; a --vary series is not sharded (run "
                                 "each --values entry as its own job)");
    if (traitsOf(m.outputKind()).wordSteps) return runCaptionSweep(m, a);
    auto cell = modelCellSize(m);
    if (!cell) return badInput("sweep", cell.error());
    SweepOptions o;
    o.runs = a.runs;
    o.seed = a.seed;
    auto& p = o.probe;
    p.canvas = m.imageSize();
    p.cellSize = *cell;
    p.seed = a.seed;
    p.distractors = a.distractors;
    p.itemIndex = a.item;
    auto object = parseProbeObject(a.object);
    if (!object) return badInput("sweep", object.error());
    p.object = *object;
    // Default: an object of one cell, every pixel across two cells on each axis that keeps it on the canvas.
    p.objectSize = a.size > 0 ? a.size : defaultProbeSize(*cell, p.object);
    std::optional<IntRange> dx, dy;
    for (auto [text, range, name] : {std::tuple{&a.dx, &dx, "--dx"}, std::tuple{&a.dy, &dy, "--dy"}}) {
        if (text->empty()) continue;
        auto r = parseIntRange(*text, name);
        if (!r) return badInput("sweep", r.error());
        *range = *r;
    }
    auto ranges = [&dx, &dy](ProbeOptions& q) {
        setDefaultSweepRanges(q);
        if (dx) q.dxMin = dx->lo, q.dxMax = dx->hi;
        if (dy) q.dyMin = dy->lo, q.dyMax = dy->hi;
    };
    ranges(p);
    std::shared_ptr<const Dataset> source;
    if (p.object == ProbeObject::Item || p.distractors > 0) {
        // Fitted to the model: a photo folder of any size is resized and cropped as the model declares.
        auto d = openDatasetFor(m, a.dataset.empty() ? m.info().dataset : a.dataset, 1);
        if (!d) return badInput("sweep", d.error());
        source = *d;
    }
    const bool labelled = p.object == ProbeObject::Item;
    // Without stochastic runs (transformers, imports without forward_sampled) the default map is
    // the deterministic rule's: accuracy, or whether its most attended place hit the object.
    const bool runs = m.hasStochasticRuns();
    SweepMetric metric = labelled ? (runs ? SweepMetric::SampleAccuracy : SweepMetric::DeterministicAccuracy)
                                  : (runs ? SweepMetric::HitRate : SweepMetric::DeterministicHit);
    if (!a.metric.empty()) {
        auto parsed = parseSweepMetric(a.metric);
        if (!parsed) return badInput("sweep", parsed.error());
        metric = *parsed;
    }
    const ObjectSource* objects = source ? source->objectSource() : nullptr;

    if (!a.vary.empty()) {
        if (a.vary != "size" && a.vary != "distractors") return badInput("sweep", "--vary takes size or distractors");
        std::vector<int> values;
        std::stringstream ss(a.values);
        for (std::string v; std::getline(ss, v, ',');) {
            auto value = parseInteger(v, "--values item", 0, 10000);
            if (!value) return badInput("sweep", value.error());
            values.push_back(int(*value));
        }
        if (values.empty()) return badInput("sweep", "--vary needs --values, e.g. --values 4,8,12,16");
        std::vector<SweepSummary> rows;
        nlohmann::json sweeps = nlohmann::json::array();
        for (int v : values) {
            SweepOptions ov = o;
            (a.vary == "size" ? ov.probe.objectSize : ov.probe.distractors) = v;
            ranges(ov.probe);  // a larger object leaves fewer offsets on the canvas
            auto r = runBoundarySweep(m, ov, objects, consoleProgress(a.vary + " " + std::to_string(v)));
            if (!r) return badInput("sweep", r.error());
            rows.push_back(summariseSweep(v, *r));
            sweeps.push_back(nlohmann::json::parse(sweepToJson(*r, -1)));
        }
        if (a.json) {
            nlohmann::json j{{"schema", "saccade.sweep-series"}, {"version", 1}, {"vary", a.vary}, {"sweeps", sweeps}};
            std::cout << j.dump(2) << "\n";
            return 0;
        }
        std::cout << "means over the positions at each " << a.vary << " value:\n  " << std::setw(11) << a.vary
                  << "  positions  " << std::setw(8) << m.deterministicRule() << "   sample   hit rate   mass\n";
        for (const auto& row : rows)
            std::cout << "  " << std::setw(11) << row.value << std::setw(11) << row.positions << "  " << std::setw(8)
                      << percent(row.deterministicAccuracy)
                      << "   " << percent(row.sampleAccuracy) << "   " << percent(row.hitRate) << "   " << percent(row.mass) << "\n";
        return 0;
    }

    auto shard = shardOf(a.shard);
    if (!shard) return badInput("sweep", shard.error());
    o.shard = *shard;
    auto r = runBoundarySweep(m, o, objects, consoleProgress("sweep"));
    if (!r) return badInput("sweep", r.error());
    if (shard->active()) {
        auto fingerprint = runFingerprint(a.model, {a.object, a.dataset, std::to_string(a.item), std::to_string(a.size),
                                                    std::to_string(a.distractors), a.dx, a.dy, std::to_string(a.runs),
                                                    std::to_string(a.seed)});
        if (!fingerprint) return badInput("sweep", fingerprint.error());
        r.value().fingerprint = *fingerprint;
        std::cout << sweepToJson(*r) << "\n";
        return 0;
    }
    if (!a.out.empty()) {
        auto saved = saveImagePng(renderSweepMap(*r, metric), a.out);
        if (!saved) return badInput("sweep", saved.error());
    }
    if (a.json) {
        std::cout << sweepToJson(*r) << "\n";
        return 0;
    }
    printSweep(*r, metric, a.top);
    if (!a.out.empty()) std::cout << "wrote the " << sweepMetricName(metric) << " map to " << a.out << "\n";
    return 0;
}

}  // namespace

void addSweepCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<SweepArgs>();
    auto* cmd = app.add_subcommand(
        "sweep", "Boundary sweep: a probe object moved pixel by pixel across the model's cells (patch grid) or "
                 "glimpse size, with the deterministic rule and N sampled runs at each position: accuracy, hit "
                 "rate (a chosen cell or the finest glimpse holds half the object) and attention mass on it.");
    cmd->add_option("--model", a->model, "checkpoint (.pt)")->required();
    cmd->add_option("--object", a->object, "item (a test item of --dataset, resized) or blob (a small disc); for a "
                                           "captioner, a scene object such as 'small red circle'")
        ->capture_default_str();
    cmd->add_option("--dataset", a->dataset, "source of items and clutter (default: the model's dataset)");
    cmd->add_option("--item", a->item, "test-split index of the item")->capture_default_str();
    cmd->add_option("--size", a->size, "object side in pixels (default: the cell, at least 20 for an item)")->check(wholeNumberIn(1, 4096));
    cmd->add_option("--distractors", a->distractors, "clutter pieces around the object")->capture_default_str()->check(wholeNumberIn(0, 1000));
    cmd->add_option("--dx", a->dx, "x offsets from the grid line, LO:HI (default: two cells)");
    cmd->add_option("--dy", a->dy, "y offsets from the grid line, LO:HI (default: two cells)");
    cmd->add_option("--runs", a->runs, "sampled runs per position (0: the deterministic rule only)")->capture_default_str();
    cmd->add_option("--seed", a->seed, "seed of the runs and the clutter")->capture_default_str();
    cmd->add_option("--metric", a->metric, "map and worst list: accuracy, sample-accuracy, hit-rate, hit or mass");
    cmd->add_option("--top", a->top, "worst positions listed")->capture_default_str();
    cmd->add_option("--out", a->out, "PNG of the failure map")->check(writes(".png", "PNG"));
    cmd->add_option("--vary", a->vary, "size or distractors: repeat the sweep for each of --values");
    cmd->add_option("--values", a->values, "comma-separated values for --vary");
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", a->json, "print the sweep as JSON (schema saccade.sweep)");
    addShardOption(cmd, a->shard);
    cmd->callback([a, cmd, &exitCode] {
        for (const char* name : {"--out", "--metric", "--vary", "--values", "--dataset", "--item", "--top", "--dy",
                                 "--distractors"})
            if (cmd->count(name) > 0) a->patchOnlyGiven += (a->patchOnlyGiven.empty() ? "" : ", ") + std::string(name);
        exitCode = runSweep(*a);
    });
}

}  // namespace saccade::cli
