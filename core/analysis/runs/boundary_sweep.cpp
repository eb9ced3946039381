#include "analysis/runs/boundary_sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "data/image_fit.h"
#include "io/shard_json.h"

#include "metrics/attention_regions.h"

namespace saccade {

namespace {

bool hitBy(const std::vector<Box>& regions, const Box& object, double* best = nullptr) {
    double c = 0;
    for (const auto& r : regions) c = std::max(c, hitOverlap(object, r));
    if (best) *best = c;
    return c >= kHitCoverage;
}

// The finest glimpse box of a RAM run at a continuous centre, as the sensor floors it.
Box glimpseAt(const std::array<float, 2>& p, double size) {
    return Box{std::floor(p[0]) - std::floor(size / 2), std::floor(p[1]) - std::floor(size / 2), size, size};
}

}  // namespace

double hitOverlap(const Box& object, const Box& region) {
    const double smaller = std::min(object.w * object.h, region.w * region.h);
    return smaller > 0 ? object.intersectionArea(region) / smaller : 0.0;
}

Result<int> modelCellSize(AttentionModel& model) {
    const int w = model.imageSize();
    Image blank = Image::zeros(w, w, model.channels());
    auto t = model.trace(blank, model.deterministicRule(), 1, "blank");
    if (!t) return Error{t.error()};
    if (t->steps.empty()) return Error{"the model's trace has no steps"};
    const auto& step = t->steps.front();
    if (step.grid && step.grid->cols > 0) return w / step.grid->cols;
    for (const auto& g : step.glimpses)
        if (g.scale == 0) return int(g.box.w);
    return Error{"the model records neither an attention grid nor glimpses"};
}

int defaultProbeSize(int cell, ProbeObject object) { return std::max(cell, object == ProbeObject::Item ? 20 : 1); }

void setDefaultSweepRanges(ProbeOptions& p) {
    const int ax = probeAnchor(p.canvas, p.cellSize, p.originX), ay = probeAnchor(p.canvas, p.cellSize, p.originY);
    p.dxMin = std::max(-p.cellSize, -ax);
    p.dxMax = std::min(p.cellSize - 1, p.canvas - p.objectSize - ax);
    p.dyMin = std::max(-p.cellSize, -ay);
    p.dyMax = std::min(p.cellSize - 1, p.canvas - p.objectSize - ay);
}

Result<SweepMetric> parseSweepMetric(const std::string& name) {
    for (auto m : {SweepMetric::DeterministicAccuracy, SweepMetric::SampleAccuracy, SweepMetric::HitRate,
                   SweepMetric::DeterministicHit, SweepMetric::Mass})
        if (sweepMetricName(m) == name) return m;
    return Error{"unknown sweep metric '" + name + "' (use accuracy, sample-accuracy, hit-rate, hit or mass)"};
}

std::string sweepMetricName(SweepMetric m) {
    switch (m) {
        case SweepMetric::DeterministicAccuracy: return "accuracy";
        case SweepMetric::SampleAccuracy: return "sample-accuracy";
        case SweepMetric::HitRate: return "hit-rate";
        case SweepMetric::DeterministicHit: return "hit";
        case SweepMetric::Mass: return "mass";
    }
    return "?";
}

double sweepValue(const SweepPoint& p, SweepMetric m) {
    switch (m) {
        case SweepMetric::DeterministicAccuracy: return p.truth < 0 ? -1 : double(p.deterministicLabel == p.truth);
        case SweepMetric::SampleAccuracy: return p.sampleAccuracy;
        case SweepMetric::HitRate: return p.sampleRuns > 0 ? p.hitRate : -1;
        case SweepMetric::DeterministicHit: return double(p.deterministicHit);
        case SweepMetric::Mass: return p.mass;
    }
    return -1;
}

Result<SweepResult> runBoundarySweep(AttentionModel& model, const SweepOptions& o, const ObjectSource* source,
                                     const Progress& progress) {
    if (o.runs < 0 || o.runs > 10000) return Error{"runs per position must be 0..10000"};
    if (o.probe.canvas != model.imageSize())
        return Error{"the probe canvas (" + std::to_string(o.probe.canvas) + " px) must be the model's input size (" +
                     std::to_string(model.imageSize()) + " px)"};
    auto probes = makeProbes(o.probe, source);
    if (!probes) return Error{probes.error()};
    // Probes are drawn grey; a colour model sees them as grey RGB (each channel the same).
    for (auto& probe : probes.value()) probe.sample.image = withChannels(probe.sample.image, model.channels());
    const auto start = std::chrono::steady_clock::now();
    SweepResult r;
    r.probe = o.probe;
    // A model without stochastic runs (a transformer, an import without forward_sampled) is swept
    // under its deterministic rule alone.
    const int runsPerPosition = model.hasStochasticRuns() ? o.runs : 0;
    r.runs = runsPerPosition;
    r.seed = o.seed;
    r.deterministicRule = model.deterministicRule();
    r.anchorX = probeAnchor(o.probe.canvas, o.probe.cellSize, o.probe.originX);
    r.anchorY = probeAnchor(o.probe.canvas, o.probe.cellSize, o.probe.originY);
    const int w = model.imageSize();
    const auto range = shardRange(o.shard, std::int64_t(probes->size()));
    r.shard = o.shard;
    r.begin = range.begin;
    r.total = std::int64_t(probes->size());
    for (auto i = size_t(range.begin); i < size_t(range.end); ++i) {
        const auto& probe = (*probes)[i];
        const Box object = probe.sample.box;
        const GroundTruth truth{probe.sample.label, {object}};
        const std::string id = "probe:" + std::to_string(probe.dx) + "," + std::to_string(probe.dy);
        SweepPoint p;
        p.dx = probe.dx;
        p.dy = probe.dy;
        p.truth = probe.sample.label;
        // The run set carries the deterministic run too; without runs, trace it alone.
        std::optional<RunSet> set;
        if (runsPerPosition > 0) {
            auto runs = model.sampleRuns(probe.sample.image, runsPerPosition, o.seed, id, truth, 1);
            if (!runs) return Error{runs.error()};
            set = std::move(runs).value();
        }
        Trace det;
        if (set) {
            det = set->deterministic;
        } else {
            auto traced = model.trace(probe.sample.image, r.deterministicRule, o.seed, id, truth);
            if (!traced) return Error{traced.error()};
            det = std::move(traced).value();
        }
        if (r.modelId.empty()) r.modelId = det.modelId;
        p.deterministicLabel = det.output.label;
        double mass = 0;
        for (const auto& step : det.steps) {
            double c = 0;
            p.deterministicHit = hitBy(chosenRegions(step, w, w), object, &c) || p.deterministicHit;
            p.deterministicCoverage = std::max(p.deterministicCoverage, c);
            mass += std::max(0.0, stepMassInBox(step, w, w, object));
        }
        p.mass = det.steps.empty() ? 0 : mass / double(det.steps.size());
        if (set) {
            int right = 0, hits = 0;
            const double glimpse = det.steps.front().glimpses.empty() ? 0 : det.steps.front().glimpses.front().box.w;
            for (const auto& run : set->runs) {
                right += run.label == p.truth;
                std::vector<Box> regions;
                for (int cell : run.cells) regions.push_back(cellBox(set->gridRows, set->gridCols, w, w, cell));
                for (const auto& pt : run.points) regions.push_back(glimpseAt(pt, glimpse));
                hits += hitBy(regions, object);
            }
            p.sampleRuns = int(set->runs.size());
            p.sampleAccuracy = p.truth < 0 ? -1 : double(right) / p.sampleRuns;
            p.hitRate = double(hits) / p.sampleRuns;
        }
        r.points.push_back(p);
        if (progress && !progress(double(std::int64_t(i) + 1 - range.begin) / double(range.size())))
            return Error{"the sweep was cancelled"};
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

std::vector<size_t> worstPoints(const SweepResult& r, SweepMetric m, size_t count) {
    std::vector<size_t> order(r.points.size());
    std::iota(order.begin(), order.end(), size_t(0));
    auto key = [&](size_t i) {
        const double v = sweepValue(r.points[i], m);
        return v < 0 ? 2.0 : v;  // undefined last
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    order.resize(std::min(count, order.size()));
    return order;
}

double meanSweepValue(const SweepResult& r, SweepMetric m) {
    double sum = 0;
    int n = 0;
    for (const auto& p : r.points) {
        const double v = sweepValue(p, m);
        if (v >= 0) sum += v, ++n;
    }
    return n ? sum / n : -1;
}

namespace {
nlohmann::json meanOrNull(const SweepResult& r, SweepMetric m) {
    const double v = meanSweepValue(r, m);
    return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v);
}
}  // namespace

SweepSummary summariseSweep(int value, const SweepResult& r) {
    return {value, int(r.points.size()), meanSweepValue(r, SweepMetric::DeterministicAccuracy),
            meanSweepValue(r, SweepMetric::SampleAccuracy), meanSweepValue(r, SweepMetric::HitRate),
            meanSweepValue(r, SweepMetric::Mass)};
}

std::string sweepToJson(const SweepResult& r, int indent) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : r.points) {
        nlohmann::json j{{"dx", p.dx}, {"dy", p.dy}, {"truth", p.truth}, {"deterministic_label", p.deterministicLabel},
                         {"deterministic_hit", p.deterministicHit}, {"deterministic_coverage", p.deterministicCoverage},
                         {"mass", p.mass}, {"runs", p.sampleRuns}, {"hit_rate", p.hitRate}};
        j["sample_accuracy"] = p.sampleAccuracy < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.sampleAccuracy);
        points.push_back(j);
    }
    const auto& o = r.probe;
    nlohmann::json worst = nlohmann::json::array();
    for (size_t i : worstPoints(r, r.points.empty() || r.points[0].truth < 0 ? SweepMetric::HitRate : SweepMetric::SampleAccuracy, 10))
        worst.push_back({{"dx", r.points[i].dx}, {"dy", r.points[i].dy}});
    nlohmann::json j{{"schema", "saccade.sweep"},
                          {"version", 1},
                          {"model", r.modelId},
                          {"deterministic_rule", r.deterministicRule},
                          {"runs", r.runs},
                          {"seed", r.seed},
                          {"hit_coverage", kHitCoverage},
                          {"probe",
                           {{"canvas", o.canvas}, {"cell", o.cellSize}, {"object_size", o.objectSize},
                            {"object", o.object == ProbeObject::Blob ? "blob" : "item"}, {"item", o.itemIndex},
                            {"distractors", o.distractors}, {"anchor", {r.anchorX, r.anchorY}},
                            {"dx", {o.dxMin, o.dxMax}}, {"dy", {o.dyMin, o.dyMax}}}},
                          {"means",  // null: not measured at any offset (no truth, no sampled runs)
                           {{"accuracy", meanOrNull(r, SweepMetric::DeterministicAccuracy)},
                            {"sample_accuracy", meanOrNull(r, SweepMetric::SampleAccuracy)},
                            {"hit_rate", meanOrNull(r, SweepMetric::HitRate)},
                            {"hit", meanOrNull(r, SweepMetric::DeterministicHit)},
                            {"mass", meanOrNull(r, SweepMetric::Mass)}}},
                          {"worst", worst},
                          {"points", points},
                          {"seconds", r.seconds}};
    if (r.shard.active())
        j["shard"] = shardHeader("sweep", r.shard, r.begin, r.begin + std::int64_t(r.points.size()), r.total, r.fingerprint);
    return j.dump(indent);
}

Result<SweepResult> sweepFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "saccade.sweep")
        return Error{"not a sweep (schema saccade.sweep)"};
    try {
        SweepResult r;
        r.modelId = j.at("model");
        r.deterministicRule = j.at("deterministic_rule");
        r.runs = j.at("runs");
        r.seed = j.at("seed");
        r.seconds = j.at("seconds");
        const auto& p = j.at("probe");
        r.probe.canvas = p.at("canvas");
        r.probe.cellSize = p.at("cell");
        r.probe.objectSize = p.at("object_size");
        r.probe.object = p.at("object") == "blob" ? ProbeObject::Blob : ProbeObject::Item;
        r.probe.itemIndex = p.at("item");
        r.probe.distractors = p.at("distractors");
        r.anchorX = p.at("anchor").at(0);
        r.anchorY = p.at("anchor").at(1);
        r.probe.dxMin = p.at("dx").at(0);
        r.probe.dxMax = p.at("dx").at(1);
        r.probe.dyMin = p.at("dy").at(0);
        r.probe.dyMax = p.at("dy").at(1);
        r.probe.seed = r.seed;
        for (const auto& q : j.at("points")) {
            SweepPoint s;
            s.dx = q.at("dx");
            s.dy = q.at("dy");
            s.truth = q.at("truth");
            s.deterministicLabel = q.at("deterministic_label");
            s.deterministicHit = q.at("deterministic_hit");
            s.deterministicCoverage = q.at("deterministic_coverage");
            s.mass = q.at("mass");
            s.sampleRuns = q.at("runs");
            s.hitRate = q.at("hit_rate");
            s.sampleAccuracy = q.at("sample_accuracy").is_null() ? -1.0 : q.at("sample_accuracy").get<double>();
            r.points.push_back(s);
        }
        return r;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("a damaged sweep: ") + firstLine(e.what())};
    }
}

}  // namespace saccade
