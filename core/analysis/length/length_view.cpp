#include "analysis/length/length_view.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "analysis/length/length_bench.h"
#include "analysis/length/length_fidelity.h"
#include "io/json_fields.h"

namespace saccade {
namespace {

constexpr std::int64_t kPatternCells = 128;
constexpr std::int64_t kExplicitLimit = 4096;

std::vector<std::int64_t> defaultCurve(std::int64_t n) {
    std::vector<std::int64_t> out;
    for (std::int64_t x = 256; x < n; x *= 2) out.push_back(x);
    out.push_back(n);
    return out;
}

/// The curve's lengths, ascending and each once (the figure's n axis runs from the first to the last).
std::vector<std::int64_t> curveLengths(const LengthViewOptions& o) {
    auto lengths = o.curveLengths.empty() ? defaultCurve(o.n) : o.curveLengths;
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    return lengths;
}

/// Density of attended pairs: sampled query rows x column bins.
void fillPattern(LengthView& view, const FidelitySource& s) {
    const auto& r = view.request;
    const auto n = r.n, cells = std::min(n, kPatternCells);
    const auto rows = torch::linspace(0, double(n - 1), cells, torch::kDouble).round().to(torch::kLong);
    torch::Tensor attended;  // [cells, n]
    if (r.variant == AttentionVariant::TopK) {
        const auto scores = torch::matmul(s.q.index_select(2, rows), s.k.transpose(-2, -1));  // [1, H, cells, n]
        const auto index = std::get<1>(scores.topk(r.options.topK, -1));
        attended = torch::zeros_like(scores, torch::kBool).scatter(-1, index, true).any(1).squeeze(0);
    } else {
        attended = variantPatternRows(r.variant, rows, n, r.options);
    }
    // Column bins of n / cells keys each.
    const auto bins = torch::floor(torch::arange(n, torch::kDouble) * double(cells) / double(n)).to(torch::kLong);
    auto sums = torch::zeros({cells, cells}, torch::kDouble).index_add_(1, bins, attended.to(torch::kDouble));
    const auto widths = torch::bincount(bins, {}, cells).to(torch::kDouble);
    const auto density = (sums / widths.unsqueeze(0)).contiguous();
    view.patternRows = view.patternCols = int(cells);
    view.pattern.assign(density.data_ptr<double>(), density.data_ptr<double>() + density.numel());
    const auto rowsC = rows.contiguous();
    view.patternQueries.assign(rowsC.data_ptr<std::int64_t>(), rowsC.data_ptr<std::int64_t>() + cells);
    view.keysPerQuery = attended.sum(1).to(torch::kDouble).mean().item<double>();
}

Result<Unit> fillRowError(LengthView& view, const FidelitySource& s, const Progress& progress) {
    const auto& r = view.request;
    torch::NoGradGuard noGrad;
    constexpr std::int64_t kRows = 256;
    std::vector<torch::Tensor> tv, agree;
    for (std::int64_t r0 = 0; r0 < r.n; r0 += kRows) {
        const auto r1 = std::min(r.n, r0 + kRows);
        const auto exact = variantWeightRows(AttentionVariant::Full, s.q, s.k, {}, r.options, r0, r1);
        const auto mine = variantWeightRows(r.variant, s.q, s.k, {}, r.options, r0, r1);
        tv.push_back((0.5 * (mine - exact).abs().sum(-1)).mean(/*dim=*/1).squeeze(0).to(torch::kDouble));
        agree.push_back((mine.argmax(-1) == exact.argmax(-1)).to(torch::kDouble).flatten());
        if (progress && !progress(0.02 * double(r1) / double(r.n))) return Error{"cancelled"};
    }
    const auto rowTv = torch::cat(tv).contiguous();
    view.rowTv.assign(rowTv.data_ptr<double>(), rowTv.data_ptr<double>() + rowTv.numel());
    view.meanTv = rowTv.mean().item<double>();
    view.maxTv = rowTv.max().item<double>();
    view.top1Agreement = torch::cat(agree).mean().item<double>();
    VariantOptions exactTiles = r.options;
    exactTiles.tile = 1024;
    const auto exact = attendVariant(AttentionVariant::MemoryEfficient, s.q.to(torch::kDouble), s.k.to(torch::kDouble),
                                     s.v.to(torch::kDouble), {}, exactTiles);
    const auto out = attendVariant(r.variant, s.q, s.k, s.v, {}, r.options).to(torch::kDouble);
    view.meanOutputError = ((out - exact).norm(2, {-1}) / exact.norm(2, {-1}).clamp_min(1e-12)).mean().item<double>();
    return Unit{};
}

Result<Unit> fillCurves(LengthView& view, const Progress& progress) {
    const auto& r = view.request;
    LengthBenchOptions b;
    b.lengths = curveLengths(r);
    b.dim = r.dim;
    b.heads = r.heads;
    b.variant = r.options;
    b.repeats = r.repeats;
    b.backward = false;
    b.errors = false;
    b.seed = r.seed;
    // Full attention only at the lengths where it fits; the variant's own at every length.
    LengthBenchOptions full = b;
    full.variants = {AttentionVariant::Full};
    full.lengths.clear();
    for (auto n : b.lengths) {
        LengthBenchOptions one = full;
        one.lengths = {n};
        if (checkLengthBench(one).empty()) full.lengths.push_back(n);
    }
    b.variants = {r.variant};
    const double share = full.lengths.empty() || r.variant == AttentionVariant::Full ? 1.0 : 0.5;
    auto part = [&](double offset) -> Progress {
        return [&, offset](double f) { return !progress || progress(offset + share * f); };
    };
    auto mine = benchAttentionLengths(b, part(0));
    if (!mine) return Error{mine.error()};
    view.matmulGflops = mine->matmulGflops;
    view.device = mine->device;
    for (const auto& p : mine->points.at(r.variant))
        view.curve.push_back({p.n, p.forwardMs, p.forwardFastestMs, p.forwardSlowestMs, p.peakMb});
    view.slope = curveSlope(view.curve, &view.slopeNote);
    if (r.variant == AttentionVariant::Full) {
        view.fullCurve = view.curve;
        view.fullSlope = view.slope;
        view.fullSlopeNote = view.slopeNote;
        return Unit{};
    }
    if (full.lengths.empty()) return Unit{};
    auto exact = benchAttentionLengths(full, part(share));
    if (!exact) return Error{exact.error()};
    for (const auto& p : exact->points.at(AttentionVariant::Full))
        view.fullCurve.push_back({p.n, p.forwardMs, p.forwardFastestMs, p.forwardSlowestMs, p.peakMb});
    view.fullSlope = curveSlope(view.fullCurve, &view.fullSlopeNote);
    return Unit{};
}

nlohmann::ordered_json curveJson(const std::vector<LengthCurvePoint>& curve) {
    auto rows = nlohmann::ordered_json::array();
    for (const auto& p : curve)
        rows.push_back({{"n", p.n}, {"ms", p.ms}, {"fastest_ms", p.fastestMs}, {"slowest_ms", p.slowestMs},
                        {"peak_mb", measuredOrNull(p.peakMb)}});
    return rows;
}

}  // namespace

std::string checkLengthView(const LengthViewOptions& o) {
    if (o.positional && o.dim % 2 != 0) return "positional inputs need an even head width (got " + std::to_string(o.dim) + ")";
    if (o.n < 16 || o.n > 65536) return "the length must be 16 to 65,536 (got " + std::to_string(o.n) + ")";
    for (auto n : o.curveLengths)
        if (n < 16 || n > 65536) return "curve lengths must be 16 to 65,536 (got " + std::to_string(n) + ")";
    // The view runs the variant and exact attention at n itself (pattern and row map) as well as
    // at every curve length: all of them must fit.
    auto lengths = curveLengths(o);
    lengths.push_back(o.n);
    for (auto n : lengths) {
        const auto problem = checkVariantOptions(o.variant, o.options, n, n);
        if (!problem.empty()) return attentionVariantName(o.variant) + " at n = " + std::to_string(n) + ": " + problem;
    }
    LengthBenchOptions one;
    one.lengths = lengths;
    one.variants = {o.variant, AttentionVariant::MemoryEfficient};
    one.variant = o.options;
    one.dim = o.dim;
    one.heads = o.heads;
    one.backward = false;
    one.errors = true;
    return checkLengthBench(one);
}

Result<LengthView> computeLengthView(const LengthViewOptions& o, const Progress& progress) {
    if (const auto problem = checkLengthView(o); !problem.empty()) return Error{problem};
    LengthView view;
    view.request = o;
    const auto source = o.positional ? positionalFidelitySource(o.n, o.dim, o.heads, o.seed)
                                     : randomFidelitySource(o.n, o.dim, o.heads, o.seed);
    fillPattern(view, source);
    if (progress && !progress(0.0)) return Error{"cancelled"};
    if (auto rows = fillRowError(view, source, progress); !rows) return Error{rows.error()};
    if (auto curves = fillCurves(view, [&](double f) { return !progress || progress(0.02 + 0.98 * f); }); !curves)
        return Error{curves.error()};
    return view;
}

std::string lengthViewToJson(const LengthView& v, int indent) {
    const auto& o = v.request.options;
    const auto name = attentionVariantName(v.request.variant);
    nlohmann::ordered_json curves = {{name, curveJson(v.curve)}};
    nlohmann::ordered_json slopes = {{name, measuredOrNull(v.slope)}}, slopeNotes = {{name, v.slopeNote}};
    if (v.request.variant != AttentionVariant::Full) {
        curves["full"] = curveJson(v.fullCurve);
        slopes["full"] = measuredOrNull(v.fullSlope);
        slopeNotes["full"] = v.fullSlopeNote;
    }
    nlohmann::ordered_json out = {
        {"schema", "saccade.length-view"}, {"version", 1}, {"variant", name}, {"n", v.request.n},
        {"dim", v.request.dim}, {"heads", v.request.heads}, {"seed", v.request.seed},
        {"inputs", v.request.positional ? "positional" : "random"}, {"device", v.device},
        {"options", {{"window", o.window}, {"block", o.block}, {"summary", o.summary}, {"k", o.topK},
                     {"features", o.features}, {"feature_seed", o.seed}, {"tile", o.tile}}},
        {"pattern", {{"rows", v.patternRows}, {"cols", v.patternCols}, {"queries", v.patternQueries}, {"density", v.pattern}}},
        {"keys_per_query", v.keysPerQuery}, {"row_tv", v.rowTv}, {"mean_tv", v.meanTv}, {"max_tv", v.maxTv},
        {"top1_agreement", v.top1Agreement}, {"mean_output_error", v.meanOutputError},
        {"matmul_gflops", v.matmulGflops}, {"repeats", v.request.repeats}, {"curves", curves}, {"slopes", slopes},
        {"slope_notes", slopeNotes}};
    return out.dump(indent);
}

std::string lengthViewToCsv(const LengthView& v) {
    std::ostringstream s;
    s.precision(9);
    s << "variant,n,median_ms,fastest_ms,slowest_ms,repeats,peak_mb\n";
    auto curve = [&](const std::string& name, const std::vector<LengthCurvePoint>& points) {
        for (const auto& p : points)
            s << name << "," << p.n << "," << p.ms << "," << p.fastestMs << "," << p.slowestMs << "," << v.request.repeats
              << "," << (p.peakMb ? std::to_string(*p.peakMb) : "") << "\n";
    };
    curve(attentionVariantName(v.request.variant), v.curve);
    if (v.request.variant != AttentionVariant::Full) curve("full", v.fullCurve);
    return s.str();
}

std::string lengthRowsToCsv(const LengthView& v) {
    std::ostringstream s;
    s.precision(9);
    s << "query,total_variation\n";
    for (std::size_t i = 0; i < v.rowTv.size(); ++i) s << i << "," << v.rowTv[i] << "\n";
    return s.str();
}

std::optional<double> curveSlope(const std::vector<LengthCurvePoint>& curve, std::string* why) {
    std::vector<const LengthCurvePoint*> used;
    for (const auto& p : curve)
        if (p.n >= 1024) used.push_back(&p);
    if (used.size() < 3) {
        used.clear();
        for (const auto& p : curve) used.push_back(&p);
    }
    auto say = [why](const std::string& reason) -> std::optional<double> {
        if (why) *why = reason;
        return std::nullopt;
    };
    if (used.size() < 3) return say("too few lengths (" + std::to_string(used.size()) + ") to fit");
    std::vector<double> x, y;
    for (const auto* p : used) {
        if (p->fastestMs > 0 && p->slowestMs > 1.5 * p->fastestMs)
            return say("timings at n = " + std::to_string(p->n) + " too unsteady to fit");
        x.push_back(double(p->n));
        y.push_back(p->ms);
    }
    if (why) why->clear();
    return logLogSlope(x, y);
}

}  // namespace saccade
