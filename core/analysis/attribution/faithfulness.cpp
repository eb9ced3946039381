#include "analysis/attribution/faithfulness.h"

#include "analysis/attribution/deletion_curves.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <tuple>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "common/seed_mix.h"
#include "io/shard_json.h"

#include "metrics/attention_regions.h"

namespace saccade {

namespace {

constexpr std::uint64_t kDeletionStream = 0xde1e7e;

std::vector<double> ranks(const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
        const double mean = (double(i) + double(j)) / 2 + 1;
        for (size_t k = i; k <= j; ++k) r[order[k]] = mean;
        i = j + 1;
    }
    return r;
}

double probOf(const std::vector<float>& p, int label) {
    return label >= 0 && label < int(p.size()) ? p[size_t(label)] : 0.0;
}

}  // namespace

std::vector<double> meanStepMap(const std::vector<std::vector<double>>& steps, int cells) {
    std::vector<double> map(size_t(cells), 0.0);
    for (const auto& a : steps)
        for (size_t i = 0; i < map.size(); ++i) map[i] += a[i] / double(steps.size());
    return map;
}

std::pair<int, int> measuredGrid(const AttentionModel& model, const Trace& t, int fallback) {
    if (const auto g = model.cellGrid(); g.side > 0) return {g.side, g.side};
    if (!t.steps.empty())
        if (const auto& g = t.steps.front().grid) return {g->rows, g->cols};
    return {fallback, fallback};
}

Image occludeCells(const Image& image, int rows, int cols, const std::vector<int>& cells, std::uint8_t fill) {
    Image out = image;
    for (int cell : cells) {
        const Box b = cellBox(rows, cols, image.width, image.height, cell);
        for (int y = int(b.y); y < int(b.y + b.h); ++y)
            for (int x = int(b.x); x < int(b.x + b.w); ++x)
                for (int c = 0; c < image.channels; ++c) out.at(x, y, c) = fill;
    }
    return out;
}

double totalVariation(const std::vector<float>& p, const std::vector<float>& q) {
    double d = 0;
    for (size_t i = 0; i < std::max(p.size(), q.size()); ++i)
        d += std::abs((i < p.size() ? p[i] : 0.f) - (i < q.size() ? q[i] : 0.f));
    return d / 2;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size() || a.size() < 2) return 0;
    const auto ra = ranks(a), rb = ranks(b);
    const double n = double(a.size()), mean = (n + 1) / 2;
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < ra.size(); ++i) {
        sab += (ra[i] - mean) * (rb[i] - mean);
        saa += (ra[i] - mean) * (ra[i] - mean);
        sbb += (rb[i] - mean) * (rb[i] - mean);
    }
    return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

void FaithfulnessSums::add(const FaithfulnessSums& o) {
    if (rows == 0) rows = o.rows, cols = o.cols;
    images += o.images;
    boxed += o.boxed;
    correlationImages += o.correlationImages;
    area.add(o.area);
    rho.add(o.rho);
    auto addAll = [](auto& into, const auto& from) {
        if (into.size() < from.size()) into.resize(from.size());
        for (size_t i = 0; i < from.size(); ++i) {
            if constexpr (std::is_same_v<std::decay_t<decltype(into[i])>, ExactSum>) into[i].add(from[i]);
            else into[i] += from[i];
        }
    };
    addAll(mass, o.mass);
    addAll(pointing, o.pointing);
    addAll(rightAttention, o.rightAttention);
    addAll(rightRandom, o.rightRandom);
    addAll(tvAttention, o.tvAttention);
    addAll(tvRandom, o.tvRandom);
    addAll(binCount, o.binCount);
    addAll(binOnObject, o.binOnObject);
    addAll(binAttention, o.binAttention);
}

FaithfulnessReport faithfulnessFromSums(const FaithfulnessSums& s, const std::vector<double>& fractions,
                                        const std::string& dataset, const std::string& rule) {
    FaithfulnessReport r;
    r.dataset = dataset;
    r.rule = rule;
    r.rows = s.rows;
    r.cols = s.cols;
    r.images = s.images;
    r.correlationImages = s.correlationImages;
    const double boxed = double(std::max<std::int64_t>(1, s.boxed)), n = double(std::max<std::int64_t>(1, s.images));
    r.boxed = s.boxed;
    if (s.boxed > 0) {  // without a box, mass, pointing, uniform mass and calibration are not measured
        for (size_t k = 0; k < s.mass.size(); ++k) {
            r.massPerStep.push_back(s.mass[k].value() / boxed);
            r.pointingPerStep.push_back(double(s.pointing[k]) / boxed);
        }
        r.uniformMass = s.area.value() / boxed;
    }
    for (size_t f = 0; f < fractions.size() && f < s.rightAttention.size(); ++f)
        r.deletion.push_back({fractions[f], double(s.rightAttention[f]) / n, double(s.rightRandom[f]) / n,
                              s.tvAttention[f].value() / n, s.tvRandom[f].value() / n});
    if (s.correlationImages) r.rankCorrelation = s.rho.value() / double(s.correlationImages);
    std::int64_t total = 0;
    for (auto count : s.binCount) total += count;
    const int bins = int(s.binCount.size());
    if (total > 0) r.expectedCalibrationError = 0.0;
    for (int k = 0; k < bins; ++k) {
        ReliabilityBin b;
        b.low = double(k) / bins;
        b.high = double(k + 1) / bins;
        b.count = s.binCount[size_t(k)];
        if (b.count) {
            b.meanAttention = s.binAttention[size_t(k)].value() / double(b.count);
            b.onObject = double(s.binOnObject[size_t(k)]) / double(b.count);
            *r.expectedCalibrationError += double(b.count) / double(total) * std::abs(b.meanAttention - b.onObject);
        }
        r.reliability.push_back(b);
    }
    r.sums = s;
    return r;
}

namespace {

int argmaxOf(const std::vector<float>& p) {
    return p.empty() ? -1 : int(std::max_element(p.begin(), p.end()) - p.begin());
}

// The work of one measurement in forwards, for progress: per image the trace, the deletion
// copies and, on the saliency images, one copy per cell.
struct FaithfulnessWork {
    const Progress* progress;
    std::int64_t total = 1, done = 0;
    bool step(std::int64_t forwards) {
        done += forwards;
        return !*progress || (*progress)(double(done) / double(std::max<std::int64_t>(1, total)));
    }
};

// The class probabilities of `images`, in chunks with progress after each; false: cancelled.
Result<std::vector<std::vector<float>>> occludedProbs(AttentionModel& model, const std::vector<Image>& images,
                                                      const std::string& rule, std::uint64_t seed, FaithfulnessWork& work) {
    bool cancelled = false;
    auto probs = batchedOutputProbs(model, images, rule, seed, [&](std::int64_t n) { return !(cancelled = !work.step(n)); });
    if (cancelled) return Error{"the faithfulness measurement was cancelled"};
    return probs;
}

// Mass in the box, the pointing game and calibration of one boxed image.
void addBoxFigures(FaithfulnessSums& s, const Trace& t, const Sample& sample, const std::vector<std::vector<double>>& stepMaps,
                   int bins) {
    const int w = sample.image.width, h = sample.image.height;
    ++s.boxed;
    s.area.add(sample.box.w * sample.box.h / double(w * h));
    for (size_t k = 0; k < t.steps.size() && k < s.mass.size(); ++k) {
        s.mass[k].add(std::max(0.0, stepMassInBox(t.steps[k], w, h, sample.box)));
        s.pointing[k] += pointsAt(t.steps[k], w, h, sample.box) ? 1 : 0;
    }
    // Calibration: every cell of every step, its attention against lying on the object.
    for (const auto& a : stepMaps)
        for (int c = 0; c < s.rows * s.cols; ++c) {
            const Box cb = cellBox(s.rows, s.cols, w, h, c);
            const bool on = cb.intersectionArea(sample.box) >= 0.5 * cb.w * cb.h;
            const size_t bin = size_t(std::min(bins - 1, int(a[size_t(c)] * bins)));
            ++s.binCount[bin];
            s.binAttention[bin].add(a[size_t(c)]);
            s.binOnObject[bin] += on ? 1 : 0;
        }
}

// Deletion: the most attended cells first against a random order (image i's own draw), every
// fraction's two occluded copies in one batch.
Result<Unit> addDeletion(AttentionModel& model, FaithfulnessSums& s, const Trace& t, const Sample& sample,
                         const std::vector<double>& map, const FaithfulnessOptions& o, std::int64_t i,
                         const std::string& rule, FaithfulnessWork& work) {
    const int cells = s.rows * s.cols;
    const std::vector<int> byAttention = cellsByImportance(map);
    const std::vector<int> byChance = randomCellOrder(cells, mixSeed(o.seed, kDeletionStream, std::uint64_t(i)));
    std::vector<Image> copies;
    for (double fraction : o.fractions) {
        const long k = std::lround(fraction * cells);
        for (const auto* order : {&byAttention, &byChance})
            copies.push_back(occludeCells(sample.image, s.rows, s.cols, std::vector<int>(order->begin(), order->begin() + k)));
    }
    auto probs = occludedProbs(model, copies, rule, o.seed, work);
    if (!probs) return Error{probs.error()};
    for (size_t f = 0; f < o.fractions.size(); ++f)
        for (size_t order = 0; order < 2; ++order) {
            const auto& after = (*probs)[2 * f + order];
            (order == 0 ? s.rightAttention : s.rightRandom)[f] += argmaxOf(after) == sample.label ? 1 : 0;
            (order == 0 ? s.tvAttention : s.tvRandom)[f].add(totalVariation(t.output.probs, after));
        }
    return Unit{};
}

// Occlusion saliency (each cell of the grid occluded alone, the fall of the answer's probability)
// against the attention map. A flat map on either side has no ranks: not counted.
Result<Unit> addSaliency(AttentionModel& model, FaithfulnessSums& s, const Trace& t, const Sample& sample,
                         const std::vector<double>& map, const std::string& rule, std::uint64_t seed,
                         FaithfulnessWork& work) {
    const int cells = s.rows * s.cols;
    std::vector<Image> copies;
    for (int c = 0; c < cells; ++c) copies.push_back(occludeCells(sample.image, s.rows, s.cols, {c}));
    auto probs = occludedProbs(model, copies, rule, seed, work);
    if (!probs) return Error{probs.error()};
    const double before = probOf(t.output.probs, t.output.label);
    std::vector<double> saliency(static_cast<size_t>(cells));
    for (int c = 0; c < cells; ++c) saliency[size_t(c)] = before - probOf((*probs)[size_t(c)], t.output.label);
    const auto flat = [](const std::vector<double>& v) {
        return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
    };
    if (!flat(map) && !flat(saliency)) {
        s.rho.add(spearman(map, saliency));
        ++s.correlationImages;
    }
    return Unit{};
}

}  // namespace

Result<FaithfulnessReport> measureFaithfulness(AttentionModel& model, const Dataset& dataset, Split split,
                                               const FaithfulnessOptions& o, const Progress& progress) {
    if (o.limit < 1 || o.saliencyImages < 0 || o.bins < 1 || o.gridForGlimpses < 1)
        return Error{"faithfulness: images, bins and grid must be positive"};
    const auto& info = dataset.info();
    if (info.width != model.imageSize() || info.channels != model.channels())
        return Error{"dataset " + info.name + " does not fit the model's " + std::to_string(model.imageSize()) + " px inputs"};
    const auto start = std::chrono::steady_clock::now();
    const std::string rule = o.rule.empty() ? model.deterministicRule() : o.rule;
    const std::int64_t total = std::min(o.limit, dataset.size(split));
    if (total < 1) return Error{"the " + std::string(splitName(split)) + " split of " + info.name + " is empty"};
    const auto range = shardRange(o.shard, total);
    FaithfulnessSums s;
    const size_t fractions = o.fractions.size();
    s.rightAttention.assign(fractions, 0);
    s.rightRandom.assign(fractions, 0);
    s.tvAttention.assign(fractions, {});
    s.tvRandom.assign(fractions, {});
    s.binCount.assign(size_t(o.bins), 0);
    s.binOnObject.assign(size_t(o.bins), 0);
    s.binAttention.assign(size_t(o.bins), {});
    FaithfulnessWork work{&progress};
    for (std::int64_t i = range.begin; i < range.end; ++i) {
        const Sample sample = dataset.sample(split, i);
        const std::string id = info.name + ":" + splitName(split) + ":" + std::to_string(i);
        auto t = model.trace(sample.image, rule, o.seed, id, GroundTruth{sample.label, {sample.box}});
        if (!t) return Error{t.error()};
        if (s.rows == 0) {
            std::tie(s.rows, s.cols) = measuredGrid(model, *t, o.gridForGlimpses);
            s.mass.assign(t->steps.size(), {});
            s.pointing.assign(t->steps.size(), 0);
            const std::int64_t cells = s.rows * s.cols, images = range.end - range.begin;
            const std::int64_t saliency = std::max<std::int64_t>(0, std::min(o.saliencyImages, range.end) - range.begin);
            work.total = images * (1 + 2 * std::int64_t(fractions)) + saliency * cells;
        }
        ++s.images;
        std::vector<std::vector<double>> stepMaps;  // each step's attention on the grid, once
        for (const auto& step : t->steps)
            stepMaps.push_back(attentionOnGrid(step, sample.image.width, sample.image.height, s.rows, s.cols));
        if (sample.box.w > 0 && sample.box.h > 0) addBoxFigures(s, *t, sample, stepMaps, o.bins);
        if (!work.step(1)) return Error{"the faithfulness measurement was cancelled"};
        const auto map = meanStepMap(stepMaps, s.rows * s.cols);
        if (auto d = addDeletion(model, s, *t, sample, map, o, i, rule, work); !d) return Error{d.error()};
        if (i < o.saliencyImages)
            if (auto c = addSaliency(model, s, *t, sample, map, rule, o.seed, work); !c) return Error{c.error()};
    }
    FaithfulnessReport r = faithfulnessFromSums(s, o.fractions, info.name, rule);
    r.shard = o.shard;
    r.begin = range.begin;
    r.total = total;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

namespace {
nlohmann::json faithfulnessOrNull(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
}  // namespace

std::string faithfulnessToJson(const FaithfulnessReport& r, int indent) {
    nlohmann::json deletion = nlohmann::json::array(), reliability = nlohmann::json::array();
    for (const auto& d : r.deletion)
        deletion.push_back({{"fraction", d.fraction}, {"accuracy_attention", d.accuracyAttention},
                            {"accuracy_random", d.accuracyRandom}, {"tv_attention", d.tvAttention},
                            {"tv_random", d.tvRandom}});
    for (const auto& b : r.reliability)
        reliability.push_back({{"low", b.low}, {"high", b.high}, {"count", b.count},
                               {"mean_attention", b.meanAttention}, {"on_object", b.onObject}});
    nlohmann::json j{{"schema", "saccade.faithfulness"},
                          {"version", 1},
                          {"caveat", kAttentionCaveat},
                          {"dataset", r.dataset},
                          {"rule", r.rule},
                          {"images", r.images},
                          {"grid", {r.rows, r.cols}},
                          {"boxed_images", r.boxed},
                          {"mass_in_box_per_step", r.boxed ? nlohmann::json(r.massPerStep) : nlohmann::json(nullptr)},
                          {"uniform_mass", faithfulnessOrNull(r.uniformMass)},
                          {"pointing_per_step", r.boxed ? nlohmann::json(r.pointingPerStep) : nlohmann::json(nullptr)},
                          {"deletion", deletion},
                          {"rank_correlation", faithfulnessOrNull(r.rankCorrelation)},
                          {"correlation_images", r.correlationImages},
                          {"reliability", r.boxed ? reliability : nlohmann::json(nullptr)},
                          {"expected_calibration_error", faithfulnessOrNull(r.expectedCalibrationError)},
                          {"seconds", r.seconds}};
    if (r.shard.active()) {
        const auto& s = r.sums;
        auto units = [](const std::vector<ExactSum>& v) {
            std::vector<std::int64_t> u;
            for (const auto& x : v) u.push_back(x.units());
            return u;
        };
        j["shard"] = shardHeader("faithfulness", r.shard, r.begin, r.begin + s.images, r.total, r.fingerprint);
        j["sums"] = {{"images", s.images}, {"boxed", s.boxed}, {"correlation_images", s.correlationImages},
                     {"grid", {s.rows, s.cols}}, {"mass_units", units(s.mass)}, {"pointing", s.pointing},
                     {"area_units", s.area.units()}, {"rho_units", s.rho.units()},
                     {"right_attention", s.rightAttention}, {"right_random", s.rightRandom},
                     {"tv_attention_units", units(s.tvAttention)}, {"tv_random_units", units(s.tvRandom)},
                     {"bin_count", s.binCount}, {"bin_on_object", s.binOnObject},
                     {"bin_attention_units", units(s.binAttention)}};
    }
    return j.dump(indent);
}

Result<FaithfulnessSums> faithfulnessSumsFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("sums")) return Error{"not a sharded faithfulness measurement"};
    try {
        const auto& u = j.at("sums");
        auto sums = [](const nlohmann::json& a) {
            std::vector<ExactSum> v;
            for (const auto& x : a) v.push_back(ExactSum::fromUnits(x.get<std::int64_t>()));
            return v;
        };
        FaithfulnessSums s;
        s.images = u.at("images");
        s.boxed = u.at("boxed");
        s.correlationImages = u.at("correlation_images");
        s.rows = u.at("grid").at(0);
        s.cols = u.at("grid").at(1);
        s.mass = sums(u.at("mass_units"));
        s.pointing = u.at("pointing").get<std::vector<std::int64_t>>();
        s.area = ExactSum::fromUnits(u.at("area_units"));
        s.rho = ExactSum::fromUnits(u.at("rho_units"));
        s.rightAttention = u.at("right_attention").get<std::vector<std::int64_t>>();
        s.rightRandom = u.at("right_random").get<std::vector<std::int64_t>>();
        s.tvAttention = sums(u.at("tv_attention_units"));
        s.tvRandom = sums(u.at("tv_random_units"));
        s.binCount = u.at("bin_count").get<std::vector<std::int64_t>>();
        s.binOnObject = u.at("bin_on_object").get<std::vector<std::int64_t>>();
        s.binAttention = sums(u.at("bin_attention_units"));
        if (s.mass.size() != s.pointing.size() || s.rightAttention.size() != s.tvAttention.size() ||
            s.binCount.size() != s.binAttention.size())
            return Error{"a damaged faithfulness shard: its sums differ in length"};
        return s;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("a damaged faithfulness shard: ") + firstLine(e.what())};
    }
}

}  // namespace saccade
