#include "analysis/runs/caption_sweep.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/shard_json.h"

#include "metrics/attention_regions.h"
#include "metrics/caption_metrics.h"
#include "data/procedural_scenes.h"

namespace saccade {

namespace {

// The colour word of a one-object caption: the first word that is a colour.
std::string colourOf(const std::vector<std::string>& words) {
    for (const auto& w : words)
        if (sceneWordClass(w) == WordClass::Colour) return w;
    return {};
}

}  // namespace

Result<CaptionSweep> sweepCaptionProbe(AttentionModel& model, const CaptionSweepOptions& o, const Progress& progress) {
    if (!traitsOf(model.outputKind()).wordSteps) return Error{"a caption sweep needs a captioner"};
    if (o.runs < 0 || o.runs > 10000) return Error{"runs must be 0..10000"};
    if (o.side < 0 || o.side > model.imageSize()) return Error{"the object side must be 1.." + std::to_string(model.imageSize()) + " pixels (0: the default)"};
    const auto start = std::chrono::steady_clock::now();
    const auto object = splitWords(o.object);
    if (object.size() != 3) return Error{"name the object by size, colour and shape, e.g. 'small red circle'"};
    SceneOptions scene;
    scene.size = model.imageSize();
    scene.textured = o.textured;
    const int size = model.imageSize();
    const int side = o.side > 0 ? o.side : (object[0] == "large" ? size / 3 : std::max(4, size / 8));
    // The grid of the model's attention, from a trace of a blank probe.
    auto blank = renderSceneProbe(scene, o.object, side, 0, 0, o.seed);
    if (!blank) return Error{blank.error()};
    // The captioner's own deterministic rule (a soft-trained one is shown soft, as it was trained).
    const std::string rule = model.unsampledRule();
    auto first = model.trace(blank->image, rule, o.seed, "probe");
    if (!first) return Error{first.error()};
    if (first->steps.empty() || !first->steps.front().grid) return Error{"the captioner's trace has no attention grid"};
    const int grid = first->steps.front().grid->cols;
    CaptionSweep sweep;
    sweep.object = o.object;
    sweep.deterministicRule = rule;
    sweep.side = side;
    sweep.cell = size / grid;
    sweep.line = (grid / 2) * sweep.cell;
    // A captioner without stochastic runs (an import without caption_sampled) is swept under its
    // deterministic rule alone, as the classifiers' sweep does.
    const int runsPerPosition = model.hasStochasticRuns() ? o.runs : 0;
    sweep.runs = runsPerPosition;
    int dxMin = o.dxMin, dxMax = o.dxMax;
    if (dxMin == 0 && dxMax == 0) dxMin = -side - sweep.cell / 2, dxMax = sweep.cell / 2;
    if (dxMin > dxMax) return Error{"the offsets must be LO:HI with LO <= HI"};
    if (sweep.line + dxMin < 0 || sweep.line + dxMax + side > size)
        return Error{"offsets " + std::to_string(dxMin) + ".." + std::to_string(dxMax) + " move the " +
                     std::to_string(side) + "-pixel object off the " + std::to_string(size) + "-pixel image"};
    // Vertically in the middle of a row of cells (or centred on it when the object is larger).
    const int y = std::clamp(sweep.line + (sweep.cell - side) / 2, 0, size - side);
    const std::string caption = "a " + o.object;
    const auto range = shardRange(o.shard, dxMax - dxMin + 1);
    sweep.shard = o.shard;
    sweep.begin = range.begin;
    sweep.total = dxMax - dxMin + 1;
    for (int dx = dxMin + int(range.begin); dx < dxMin + int(range.end); ++dx) {
        auto probe = renderSceneProbe(scene, o.object, side, sweep.line + dx, y, o.seed);
        if (!probe) return Error{probe.error()};
        GroundTruth truth;
        truth.boxes = {probe->box};
        truth.names = {o.object};
        truth.references = {caption};
        auto trace = model.trace(probe->image, rule, o.seed, "probe dx " + std::to_string(dx), truth);
        if (!trace) return Error{trace.error()};
        CaptionSweepPoint p;
        p.dx = dx, p.x = sweep.line + dx, p.y = y;
        p.caption = trace->output.text;
        p.exact = p.caption == caption;
        const auto words = splitWords(p.caption);
        p.colourRight = colourOf(words) == object[1];
        // The step that says the colour (or the third word, where the colour belongs).
        std::size_t at = std::min<std::size_t>(2, trace->steps.size() - 1);
        for (std::size_t s = 0; s < trace->steps.size(); ++s)
            if (sceneWordClass(trace->steps[s].token) == WordClass::Colour) {
                at = s;
                break;
            }
        const auto& step = trace->steps[at];
        p.mass = gridMassInBox(*step.grid, size, size, probe->box);
        const int chosen = attendedCell(step);
        p.hit = cellBox(grid, grid, size, size, chosen).intersectionArea(probe->box) > 0;
        if (runsPerPosition > 0) {
            auto runs = model.sampleRuns(probe->image, runsPerPosition, o.seed, "probe", truth, 1);
            if (!runs) return Error{runs.error()};
            int colour = 0, exact = 0;
            for (const auto& r : runs->runs) {
                colour += colourOf(splitWords(r.text)) == object[1];
                exact += r.text == caption;
            }
            p.runsColourRight = double(colour) / runsPerPosition;
            p.runsExact = double(exact) / runsPerPosition;
        }
        sweep.points.push_back(std::move(p));
        if (progress && !progress(double(dx - dxMin + 1 - range.begin) / double(range.size())))
            return Error{"the sweep was cancelled"};
    }
    sweep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return sweep;
}

std::string captionSweepToJson(const CaptionSweep& s, int indent) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.points) {
        nlohmann::json j{{"dx", p.dx}, {"x", p.x}, {"y", p.y}, {"caption", p.caption}, {"exact", p.exact},
                         {"colour_right", p.colourRight}, {"mass", p.mass}, {"hit", p.hit}};
        if (p.runsColourRight >= 0) j["runs_colour_right"] = p.runsColourRight, j["runs_exact"] = p.runsExact;
        points.push_back(std::move(j));
    }
    nlohmann::json j{{"schema", "saccade.caption-sweep"}, {"version", 1}, {"object", s.object},
                     {"deterministic_rule", s.deterministicRule}, {"side", s.side}, {"cell", s.cell},
                     {"line", s.line}, {"runs", s.runs}, {"seconds", s.seconds}, {"points", points}};
    if (s.shard.active())
        j["shard"] = shardHeader("caption-sweep", s.shard, s.begin, s.begin + std::int64_t(s.points.size()), s.total,
                                 s.fingerprint);
    return j.dump(indent);
}

Result<CaptionSweep> captionSweepFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "saccade.caption-sweep")
        return Error{"not a caption sweep (schema saccade.caption-sweep)"};
    try {
        CaptionSweep s;
        s.object = j.at("object");
        s.deterministicRule = j.at("deterministic_rule");
        s.side = j.at("side");
        s.cell = j.at("cell");
        s.line = j.at("line");
        s.runs = j.at("runs");
        s.seconds = j.at("seconds");
        for (const auto& q : j.at("points")) {
            CaptionSweepPoint p;
            p.dx = q.at("dx");
            p.x = q.at("x");
            p.y = q.at("y");
            p.caption = q.at("caption");
            p.exact = q.at("exact");
            p.colourRight = q.at("colour_right");
            p.mass = q.at("mass");
            p.hit = q.at("hit");
            if (q.contains("runs_colour_right")) {
                p.runsColourRight = q.at("runs_colour_right");
                p.runsExact = q.at("runs_exact");
            }
            s.points.push_back(std::move(p));
        }
        return s;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("a damaged caption sweep: ") + firstLine(e.what())};
    }
}

}  // namespace saccade
