#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "analysis/runs/boundary_sweep.h"
#include "analysis/runs/dataset_comparison.h"
#include "analysis/attribution/faithfulness.h"
#include "analysis/runs/rule_comparison.h"
#include "common/base64.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "models/attention_model.h"
#include "models/caption/caption_model.h"
#include "models/cost_profile.h"
#include "models/model_input.h"
#include "render/sweep_render.h"
#include "render/trace_render.h"
#include "report/svg_chart.h"
#include "trace/run_set.h"

namespace saccade {

namespace {

std::string pct(double fraction) { return fraction < 0 ? "n/a" : fixedNumber(100 * fraction, 1) + "%"; }

// An <img> with the PNG inline; the alt text says what it shows.
std::string pngTag(const Image& image, const std::string& alt) {
    auto png = encodeImagePng(image);
    if (!png) return "<p class=\"missing\">(figure not drawn: " + escapeHtml(png.error()) + ")</p>";
    return "<img alt=\"" + escapeHtml(alt) + "\" src=\"data:image/png;base64," + base64Encode(*png) + "\">";
}

std::string unavailable(const std::string& why) { return "<p class=\"missing\">Not in this report: " + escapeHtml(why) + "</p>"; }

constexpr const char* kStyle = R"(
body{font-family:sans-serif;max-width:1060px;margin:24px auto;padding:0 16px;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:4px}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child,td.text,table.card td{text-align:left}.train{font-weight:bold;color:#b71c1c}
.caveat{background:#fff4d6;border:1px solid #e8c66a;padding:8px 12px;font-weight:bold}
.missing{color:#8a5a00}.meta{color:#555}img{max-width:100%;image-rendering:pixelated}
code{background:#f4f4f4;padding:1px 4px}figure{margin:12px 0}figcaption{color:#555;font-size:.9em}
)";

// A section's share of the progress; a "stop" from the caller is remembered, so the report
// ends after the section whatever words the section's own error uses.
struct Section {
    const Progress* progress;
    double start, width;
    bool* stopped;
    bool operator()(double f) const {
        if (*progress && !(*progress)(start + width * std::clamp(f, 0.0, 1.0))) *stopped = true;
        return !*stopped;
    }
};

// How the model was trained, as far as its file says: an import records none of it.
std::string trainedWith(const AttentionModel& model) {
    const auto& info = model.info();
    if (!traitsOf(model.trainedMode()).recorded)
        return "not recorded: an imported model" + (info.dataset.empty() ? std::string() : ", declaring the dataset " + escapeHtml(info.dataset));
    return escapeHtml(trainingModeName(model.trainedMode())) + " attention on " + escapeHtml(info.dataset) + ", " +
           std::to_string(info.iteration) + " iterations, seed " + std::to_string(info.seed);
}

std::string cardSection(AttentionModel& model, const ReportOptions& o) {
    const auto& info = model.info();
    std::ostringstream s;
    s << "<h2>Model card</h2><table class=\"card\">"
      << "<tr><th>file</th><td>" << escapeHtml(o.modelPath) << "</td></tr>"
      << "<tr><th>type</th><td>" << escapeHtml(info.modelType) << ", " << escapeHtml(model.summary()) << "</td></tr>"
      << "<tr><th>trained with</th><td>" << trainedWith(model) << "</td></tr>"
      << "<tr><th>deterministic rule</th><td>" << escapeHtml(model.deterministicRule()) << "</td></tr>"
      << "<tr><th>input</th><td>" << model.imageSize() << " x " << model.imageSize() << ", " << model.channels()
      << " channel(s), " << model.steps() << " steps</td></tr>"
      << "<tr><th>re-create with</th><td><code>" << escapeHtml(info.command.empty() ? "(not recorded)" : info.command)
      << "</code></td></tr>"
      << "<tr><th>weights CRC-32</th><td>" << escapeHtml(info.weightsCrc32.empty() ? "(not recorded)" : info.weightsCrc32)
      << "</td></tr><tr><th>device</th><td>" << escapeHtml(model.deviceName()) << "</td></tr></table>";
    return s.str();
}

std::string accuracySection(AttentionModel& model, const Dataset& dataset, const ReportOptions& o, const Section& p) {
    std::vector<std::string> rules = model.evaluationRules();
    if (rules.empty())
        rules = model.trainedMode() == TrainingMode::Reinforce ? std::vector<std::string>{"mean", "sample", "ksample:10", "random"}
                                                   : std::vector<std::string>{"argmax", "soft", "sample", "ksample:10"};
    auto report = model.evaluate(dataset, Split::Test, rules, o.limit, o.seed, p);
    if (!report) {
        return "<h2>Accuracy per rule</h2>" + unavailable(report.error());
    }
    const std::string training = traitsOf(model.trainedMode()).trainingRule;
    std::ostringstream s;
    s << "<h2>Accuracy per rule</h2><p>" << report->rules.front().n << " images of the " << escapeHtml(report->dataset)
      << " test split, seed " << o.seed << " (image i drawn with seed + i). The training rule ("
      << escapeHtml(training) << ") is marked in red; intervals are 95% Wilson intervals.</p>";
    std::vector<BarRow> bars;
    s << "<table><tr><th>rule</th><th>right</th><th>accuracy</th><th>95% interval</th></tr>";
    for (const auto& r : report->rules) {
        const bool train = isTrainingRule(r.rule, training);
        bars.push_back({r.rule + (train ? " (training)" : ""), r.accuracy, r.low, r.high, train});
        s << "<tr" << (train ? " class=\"train\"" : "") << "><td>" << escapeHtml(r.rule) << (train ? " (training rule)" : "")
          << "</td><td>" << r.correct << " / " << r.n << "</td><td>" << pct(r.accuracy) << "</td><td>" << pct(r.low)
          << " to " << pct(r.high) << "</td></tr>";
    }
    s << "</table>";
    const bool caption = traitsOf(report->outputKind).referenceScored;
    s << svgBars(caption ? "Exact match per rule (95% interval)" : "Accuracy per rule (95% interval)", bars);
    if (caption) {
        s << "<table><tr><th>rule</th><th>BLEU-1</th><th>BLEU-2</th><th>BLEU-3</th><th>BLEU-4</th>"
             "<th>object words: mass in box</th><th>hit rate</th></tr>";
        for (const auto& c : report->captions) {
            s << "<tr><td>" << escapeHtml(c.rule) << "</td>";
            for (double b : c.bleu) s << "<td>" << fixedNumber(b, 3) << "</td>";
            const auto objects = c.attention.empty() ? CaptionRuleReport::Correctness{} : c.attention.back();
            s << "<td>" << pct(objects.mass) << "</td><td>" << pct(objects.hitRate) << "</td></tr>";
        }
        s << "</table>";
    }
    return s.str();
}

// A model without sampled runs: its rules side by side (analysis/rule_comparison.h).
std::string rulesSection(AttentionModel& model, const Dataset& dataset, const ReportOptions& o, const Section& p) {
    std::ostringstream s;
    s << "<h2>The model's rules compared</h2>";
    const auto rules = defaultRuleComparisonRules(model);
    auto c = compareRulesOnDataset(model, dataset, Split::Test, rules, std::min<std::int64_t>(o.limit, 200), o.seed, p);
    if (!c) return s.str() + unavailable(c.error());
    const auto measured = [](const std::optional<double>& v) { return v ? pct(*v) : std::string("not measured"); };
    s << "<p>This model has no sampled runs. " << c->images << " test images (" << c->boxed << " with a box), each "
      << "traced under every rule; the last step's map (a transformer's last layer) is measured.</p><table><tr>"
         "<th>rule</th><th>accuracy</th><th>95% interval</th><th>mass in box</th><th>pointing game</th></tr>";
    for (const auto& r : c->rules)
        s << "<tr><td>" << escapeHtml(r.rule) << "</td><td>" << pct(r.accuracy.accuracy) << "</td><td>" << pct(r.accuracy.low)
          << " to " << pct(r.accuracy.high) << "</td><td>" << measured(r.massInBox) << "</td><td>" << measured(r.pointing)
          << "</td></tr>";
    s << "</table>";
    if (c->agreement.empty()) return s.str();
    s << "<table><tr><th>rules</th><th>same most attended cell</th></tr>";
    for (const auto& g : c->agreement)
        s << "<tr><td>" << escapeHtml(g.first + " and " + g.second) << "</td><td>" << pct(g.fraction) << "</td></tr>";
    s << "</table>";
    return s.str();
}

std::string runsSection(AttentionModel& model, const Dataset& dataset, const ReportOptions& o, const Section& p) {
    if (!model.hasStochasticRuns()) return rulesSection(model, dataset, o, p);
    std::ostringstream s;
    s << "<h2>One image: " << o.runs << " sampled runs against " << escapeHtml(model.deterministicRule()) << "</h2>";
    if (o.imageIndex < 0 || o.imageIndex >= dataset.size(Split::Test))
        return s.str() + unavailable("image " + std::to_string(o.imageIndex) + " is outside the test split");
    const Sample sample = dataset.sample(Split::Test, o.imageIndex);
    const GroundTruth truth = sampleGroundTruth(sample);
    const std::string id = dataset.info().name + ":test:" + std::to_string(o.imageIndex);
    auto set = model.sampleRuns(sample.image, o.runs, o.seed, id, truth, 10, p);
    if (!set) {
        return s.str() + unavailable(set.error());
    }
    const RunStats stats = computeRunStats(*set);
    const auto name = [&](int k) {
        return k >= 0 && std::size_t(k) < set->classNames.size() ? set->classNames[k] : std::to_string(k);
    };
    s << "<p>Image <code>" << escapeHtml(id) << "</code>, runs with seeds " << set->seed << " to "
      << set->seed + std::uint64_t(stats.runs) - 1 << ". The deterministic rule outputs <b>"
      << escapeHtml(name(stats.deterministicLabel)) << "</b>; " << pct(stats.agreement) << " of the runs agree with it";
    if (stats.accuracy) s << ", " << pct(*stats.accuracy) << " are right";
    s << "; " << stats.paths.size() << " distinct paths.</p>";
    std::vector<int> order(stats.labelCounts.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = int(k);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return stats.labelCounts[a] > stats.labelCounts[b]; });
    std::vector<BarRow> bars;
    for (int k : order) {
        if (stats.labelCounts[k] == 0 || bars.size() == 6) break;
        std::string label = name(k);
        if (k == stats.deterministicLabel) label += " (" + model.deterministicRule() + ")";
        if (set->truth && k == *set->truth) label += " (true)";
        bars.push_back({label, double(stats.labelCounts[k]) / std::max(1, stats.runs), -1, -1,
                        set->truth && k == *set->truth});
    }
    s << svgBars("Share of runs per output (green: the true class)", bars, 640, "#2ca02c");
    RenderOptions render;
    render.caption = traceCaption(set->deterministic);
    s << "<figure>" << pngTag(renderTraceStrip(sample.image, set->deterministic, render), "the deterministic run")
      << "<figcaption>The deterministic run, step by step.</figcaption></figure>";
    // The first run that disagrees with the deterministic output, else the first run.
    std::size_t shown = 0;
    for (std::size_t i = 0; i < set->runs.size(); ++i)
        if (set->runs[i].label != stats.deterministicLabel) { shown = i; break; }
    if (!set->runs.empty()) {
        auto run = model.trace(sample.image, "sample",
                               runSeed(set->seed, shown), id, truth);
        if (run) {
            render.caption = traceCaption(*run);
            s << "<figure>" << pngTag(renderTraceStrip(sample.image, *run, render), "a sampled run")
              << "<figcaption>Sampled run " << shown + 1 << " (seed " << runSeed(set->seed, shown) << ")"
              << (set->runs[shown].label != stats.deterministicLabel ? ", the first that disagrees with the deterministic rule."
                                                                    : "; every run agrees with the deterministic rule.")
              << "</figcaption></figure>";
        }
    }
    return s.str();
}

std::string sweepSection(AttentionModel& model, const Dataset& dataset, const ReportOptions& o, const Section& p) {
    std::ostringstream s;
    s << "<h2>Failure map: the object moved across the cell boundaries</h2>";
    if (traitsOf(model.outputKind()).wordSteps)
        return s.str() + unavailable("the captioner's sweep moves a small object and scores its words; run "
                                     "saccade-cli sweep --model ... for it");
    auto cell = modelCellSize(model);
    if (!cell) return s.str() + unavailable(cell.error());
    SweepOptions so;
    so.runs = o.sweepRuns;
    so.seed = o.seed;
    so.probe.canvas = model.imageSize();
    so.probe.cellSize = *cell;
    so.probe.seed = o.seed;
    so.probe.object = ProbeObject::Item;
    so.probe.itemIndex = o.imageIndex;
    so.probe.objectSize = defaultProbeSize(*cell, so.probe.object);
    setDefaultSweepRanges(so.probe);
    auto r = runBoundarySweep(model, so, dataset.objectSource(), p);
    if (!r) {
        return s.str() + unavailable(r.error());
    }
    const SweepMetric metric = r->runs > 0 ? SweepMetric::SampleAccuracy : SweepMetric::DeterministicAccuracy;
    s << "<p>Test item " << o.imageIndex << " (object " << r->probe.objectSize << " px) placed at " << r->points.size()
      << " offsets (dx, dy) from the grid lines at x = " << r->anchorX << ", y = " << r->anchorY << " (cell "
      << r->probe.cellSize << " px), " << r->runs << " sampled runs each. Mean over the positions: "
      << escapeHtml(r->deterministicRule) << " right " << pct(meanSweepValue(*r, SweepMetric::DeterministicAccuracy))
      << ", sampled runs right " << pct(meanSweepValue(*r, SweepMetric::SampleAccuracy)) << ", hit rate "
      << pct(meanSweepValue(*r, SweepMetric::HitRate)) << ", attention mass on the object "
      << pct(meanSweepValue(*r, SweepMetric::Mass)) << ".</p>";
    s << "<figure>" << pngTag(renderSweepMap(*r, metric), "failure map")
      << "<figcaption>Colour: " << escapeHtml(sweepMetricName(metric))
      << " at each offset (dark: fails; grey: not defined); solid lines: the object's near edge on a grid line."
      << "</figcaption></figure>";
    s << "<table><tr><th>worst offsets (dx, dy)</th><th>" << escapeHtml(r->deterministicRule)
      << "</th><th>sampled right</th><th>hit rate</th><th>mass</th></tr>";
    for (std::size_t i : worstPoints(*r, metric, 5)) {
        const auto& q = r->points[i];
        s << "<tr><td>" << q.dx << ", " << q.dy << "</td><td>"
          << (q.truth < 0 ? "n/a" : q.deterministicLabel == q.truth ? "right" : "wrong") << "</td><td>"
          << pct(q.sampleAccuracy) << "</td><td>" << pct(q.hitRate) << "</td><td>" << pct(q.mass) << "</td></tr>";
    }
    s << "</table>";
    return s.str();
}

std::string faithfulnessSection(AttentionModel& model, const Dataset& dataset, const ReportOptions& o,
                                const Section& p) {
    std::ostringstream s;
    s << "<h2>Faithfulness</h2><p class=\"caveat\">" << kAttentionCaveat << "</p>";
    FaithfulnessOptions fo;
    fo.limit = o.faithfulnessImages;
    fo.saliencyImages = std::min<std::int64_t>(fo.saliencyImages, o.faithfulnessImages);
    fo.seed = o.seed;
    auto r = measureFaithfulness(model, dataset, Split::Test, fo, p);
    if (!r) {
        return s.str() + unavailable(r.error());
    }
    const auto figure = [](const std::optional<double>& v) { return v ? fixedNumber(*v, 3) : std::string("not measured"); };
    s << "<p>" << r->images << " test images under " << escapeHtml(r->rule) << ", " << r->boxed << " with a box. ";
    if (r->uniformMass) s << "Uniform attention would put " << pct(*r->uniformMass) << " of its mass in the object's box. ";
    s << "Rank correlation of attention with occlusion saliency: " << figure(r->rankCorrelation) << " (Spearman, "
      << r->correlationImages << " images); expected calibration error of attention as a detector: "
      << figure(r->expectedCalibrationError) << ".</p>";
    if (r->boxed == 0) {
        s << unavailable("mass in box and the pointing game: no image of this dataset has a box (not measured)");
    } else {
        s << "<table><tr><th>step</th><th>mass in box</th><th>pointing game</th></tr>";
        for (std::size_t t = 0; t < r->massPerStep.size(); ++t)
            s << "<tr><td>" << t + 1 << "</td><td>" << pct(r->massPerStep[t]) << "</td><td>"
              << pct(r->pointingPerStep[t]) << "</td></tr>";
        s << "</table>";
    }
    std::vector<LineSeries> lines{{"accuracy, most attended cells removed", "#d62728", false, {}},
                                  {"accuracy, random cells removed", "#1f77b4", false, {}},
                                  {"TV distance, attended", "#d62728", true, {}},
                                  {"TV distance, random", "#1f77b4", true, {}}};
    double xMax = 0;
    for (const auto& d : r->deletion) {
        lines[0].points.push_back({d.fraction, d.accuracyAttention});
        lines[1].points.push_back({d.fraction, d.accuracyRandom});
        lines[2].points.push_back({d.fraction, d.tvAttention});
        lines[3].points.push_back({d.fraction, d.tvRandom});
        xMax = std::max(xMax, d.fraction);
    }
    s << svgLines("Deletion test", "fraction of cells removed", "accuracy / TV distance", lines, xMax > 0 ? xMax : 1);
    return s.str();
}

std::string costSection(AttentionModel& model, const ReportOptions& o, const Section& p) {
    std::ostringstream s;
    s << "<h2>What selection costs, per stage</h2>";
    CostOptions co;
    co.model = o.modelPath;
    co.repeats = o.costRepeats;
    co.device = model.deviceName();
    auto r = profileCost(co, p);
    if (!r) {
        return s.str() + unavailable(r.error());
    }
    std::vector<std::string> stages;
    for (const auto& rule : r->rules)
        for (const auto& st : rule.stages)
            if (std::find(stages.begin(), stages.end(), st.stage) == stages.end()) stages.push_back(st.stage);
    std::vector<StackedRow> rows;
    s << "<p>Measured on " << escapeHtml(r->device) << ", batch " << r->batch << ", " << r->threads
      << " thread(s), median of " << o.costRepeats << " repetitions; FLOPs counted from the layer shapes.</p>"
      << "<table><tr><th>variant, rule</th><th>ms per image</th><th>MFLOP per image</th><th>note</th></tr>";
    for (const auto& rule : r->rules) {
        StackedRow row{rule.variant + ", " + rule.rule, std::vector<double>(stages.size(), 0.0)};
        for (const auto& st : rule.stages)
            row.values[std::find(stages.begin(), stages.end(), st.stage) - stages.begin()] = st.msPerImage;
        rows.push_back(row);
        s << "<tr><td>" << escapeHtml(row.label) << "</td><td>" << fixedNumber(rule.msPerImage, 3) << "</td><td>"
          << fixedNumber(rule.mflopsPerImage, 2) << "</td><td class=\"text\">" << escapeHtml(rule.note) << "</td></tr>";
    }
    s << "</table>" << svgStackedBars("Time per image by stage", stages, rows, "ms per image (measured)");
    return s.str();
}

}  // namespace

Result<std::string> buildHtmlReport(AttentionModel& model, const ReportOptions& o, const Progress& progress) {
    auto dataset = openDatasetFor(model, o.dataset.empty() ? model.info().dataset : o.dataset, model.info().seed);
    if (!dataset) return Error{dataset.error()};
    const std::string datasetName = (*dataset)->info().name;
    const std::int64_t testImages = (*dataset)->size(Split::Test);
    if (o.imageIndex < 0 || o.imageIndex >= testImages)
        return Error{"--image " + std::to_string(o.imageIndex) + " is outside the test split of " + datasetName +
                     " (0 to " + std::to_string(testImages - 1) + ")"};
    const std::string title = "Saccade report: " + model.info().modelType + " model on " + datasetName;
    std::ostringstream html;
    html << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escapeHtml(title)
         << "</title><style>" << kStyle << "</style></head><body><h1>" << escapeHtml(title) << "</h1><p class=\"meta\">"
         << escapeHtml(o.modelPath) << (o.generated.empty() ? "" : ", generated " + escapeHtml(o.generated))
         << ". Every figure below was measured for this report by Saccade; the seed is " << o.seed << ".</p>";
    html << cardSection(model, o);
    bool stopped = false;
    const auto step = [&](double start, double width) { return Section{&progress, start, width, &stopped}; };
    const auto done = [&](double at) { return stopped || (progress && !progress(at)); };
    html << accuracySection(model, **dataset, o, step(0.0, 0.3));
    if (done(0.3)) return Error{"the report was cancelled"};
    html << runsSection(model, **dataset, o, step(0.3, 0.1));
    if (done(0.4)) return Error{"the report was cancelled"};
    html << sweepSection(model, **dataset, o, step(0.4, 0.25));
    if (done(0.65)) return Error{"the report was cancelled"};
    html << faithfulnessSection(model, **dataset, o, step(0.65, 0.2));
    if (done(0.85)) return Error{"the report was cancelled"};
    html << costSection(model, o, step(0.85, 0.15));
    if (done(1.0)) return Error{"the report was cancelled"};
    html << "</body></html>\n";
    return html.str();
}

}  // namespace saccade
