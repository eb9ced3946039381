#include "analysis/faithfulness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "analysis/attention_regions.h"

namespace saccade {

namespace {

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

// The mean of per-step maps of `cells` cells.
std::vector<double> meanMap(const std::vector<std::vector<double>>& steps, int cells) {
    std::vector<double> map(size_t(cells), 0.0);
    for (const auto& a : steps)
        for (size_t i = 0; i < map.size(); ++i) map[i] += a[i] / double(steps.size());
    return map;
}

}  // namespace

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

Result<FaithfulnessReport> measureFaithfulness(AttentionModel& model, const Dataset& dataset, Split split,
                                               const FaithfulnessOptions& o, const Progress& progress) {
    if (o.limit < 1 || o.saliencyImages < 0 || o.bins < 1 || o.gridForGlimpses < 1)
        return Error{"faithfulness: images, bins and grid must be positive"};
    const auto& info = dataset.info();
    if (info.width != model.imageSize() || info.channels != model.channels())
        return Error{"dataset " + info.name + " does not fit the model's " + std::to_string(model.imageSize()) + " px inputs"};
    const auto start = std::chrono::steady_clock::now();
    const std::string rule = model.deterministicRule();
    const std::int64_t n = std::min(o.limit, dataset.size(split));
    if (n < 1) return Error{"the " + std::string(splitName(split)) + " split of " + info.name + " is empty"};
    FaithfulnessReport r;
    r.dataset = info.name;
    r.rule = rule;
    std::mt19937_64 random(o.seed);
    std::vector<std::int64_t> rightAttention(o.fractions.size()), rightRandom(o.fractions.size());
    std::vector<double> tvAttention(o.fractions.size()), tvRandom(o.fractions.size());
    std::vector<ReliabilityBin> bins(size_t(o.bins));
    double rhoSum = 0, areaSum = 0;
    std::int64_t boxed = 0;
    const std::int64_t work = n + std::min(o.saliencyImages, n);
    for (std::int64_t i = 0; i < n; ++i) {
        const Sample s = dataset.sample(split, i);
        const GroundTruth truth{s.label, {s.box}};
        const std::string id = info.name + ":" + splitName(split) + ":" + std::to_string(i);
        auto t = model.trace(s.image, rule, o.seed, id, truth);
        if (!t) return Error{t.error()};
        if (r.rows == 0) {
            const auto& g = t->steps.front().grid;
            r.rows = g ? g->rows : o.gridForGlimpses;
            r.cols = g ? g->cols : o.gridForGlimpses;
            r.massPerStep.assign(t->steps.size(), 0.0);
            r.pointingPerStep.assign(t->steps.size(), 0.0);
        }
        const int w = s.image.width, h = s.image.height;
        const int cells = r.rows * r.cols;
        // Mass in the box and the pointing game.
        const bool hasBox = s.box.w > 0 && s.box.h > 0;
        if (hasBox) {
            ++boxed;
            areaSum += s.box.w * s.box.h / double(w * h);
            for (size_t k = 0; k < t->steps.size() && k < r.massPerStep.size(); ++k) {
                r.massPerStep[k] += std::max(0.0, stepMassInBox(t->steps[k], w, h, s.box));
                r.pointingPerStep[k] += pointsAt(t->steps[k], w, h, s.box);
            }
        }
        // Each step's attention on the grid, once: for calibration and the map.
        std::vector<std::vector<double>> stepMaps;
        for (const auto& step : t->steps) stepMaps.push_back(attentionOnGrid(step, w, h, r.rows, r.cols));
        // Calibration: every cell of every step, its attention against lying on the object.
        if (hasBox)
            for (const auto& a : stepMaps)
                for (int c = 0; c < cells; ++c) {
                    const Box cb = cellBox(r.rows, r.cols, w, h, c);
                    const bool on = cb.intersectionArea(s.box) >= 0.5 * cb.w * cb.h;
                    auto& bin = bins[size_t(std::min(o.bins - 1, int(a[size_t(c)] * o.bins)))];
                    ++bin.count;
                    bin.meanAttention += a[size_t(c)];
                    bin.onObject += on;
                }
        // Deletion: the most attended cells first, against a random order.
        const auto map = meanMap(stepMaps, cells);
        std::vector<int> byAttention(static_cast<size_t>(cells)), byChance(static_cast<size_t>(cells));
        std::iota(byAttention.begin(), byAttention.end(), 0);
        std::iota(byChance.begin(), byChance.end(), 0);
        std::stable_sort(byAttention.begin(), byAttention.end(), [&](int a, int b) { return map[size_t(a)] > map[size_t(b)]; });
        std::shuffle(byChance.begin(), byChance.end(), random);
        for (size_t f = 0; f < o.fractions.size(); ++f) {
            const size_t k = size_t(std::lround(o.fractions[f] * cells));
            for (int order = 0; order < 2; ++order) {
                const auto& cellsOrder = order == 0 ? byAttention : byChance;
                const Image occluded = occludeCells(s.image, r.rows, r.cols, std::vector<int>(cellsOrder.begin(), cellsOrder.begin() + long(k)));
                auto after = model.trace(occluded, rule, o.seed, id + ":occluded");
                if (!after) return Error{after.error()};
                const double tv = totalVariation(t->output.probs, after->output.probs);
                const bool right = after->output.label == s.label;
                (order == 0 ? rightAttention : rightRandom)[f] += right;
                (order == 0 ? tvAttention : tvRandom)[f] += tv;
            }
        }
        // Occlusion saliency (one cell at a time) against the attention map.
        if (i < o.saliencyImages) {
            std::vector<double> saliency(static_cast<size_t>(cells));
            const double before = probOf(t->output.probs, t->output.label);
            for (int c = 0; c < cells; ++c) {
                auto after = model.trace(occludeCells(s.image, r.rows, r.cols, {c}), rule, o.seed, id + ":saliency");
                if (!after) return Error{after.error()};
                saliency[size_t(c)] = before - probOf(after->output.probs, t->output.label);
            }
            rhoSum += spearman(map, saliency);
            ++r.correlationImages;
        }
        if (progress && !progress(double(i + 1 + std::min<std::int64_t>(i + 1, o.saliencyImages)) / double(work)))
            return Error{"the faithfulness measurement was cancelled"};
    }
    r.images = n;
    for (size_t k = 0; k < r.massPerStep.size(); ++k) {
        r.massPerStep[k] /= double(std::max<std::int64_t>(1, boxed));
        r.pointingPerStep[k] /= double(std::max<std::int64_t>(1, boxed));
    }
    r.uniformMass = areaSum / double(std::max<std::int64_t>(1, boxed));
    for (size_t f = 0; f < o.fractions.size(); ++f)
        r.deletion.push_back({o.fractions[f], double(rightAttention[f]) / n, double(rightRandom[f]) / n,
                              tvAttention[f] / n, tvRandom[f] / n});
    r.rankCorrelation = r.correlationImages ? rhoSum / double(r.correlationImages) : 0;
    std::int64_t total = 0;
    for (auto& b : bins) total += b.count;
    for (int k = 0; k < o.bins; ++k) {
        auto& b = bins[size_t(k)];
        b.low = double(k) / o.bins;
        b.high = double(k + 1) / o.bins;
        if (b.count) {
            b.meanAttention /= double(b.count);
            b.onObject /= double(b.count);
            r.expectedCalibrationError += double(b.count) / double(total) * std::abs(b.meanAttention - b.onObject);
        }
    }
    r.reliability = bins;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

std::string faithfulnessToJson(const FaithfulnessReport& r, int indent) {
    nlohmann::json deletion = nlohmann::json::array(), reliability = nlohmann::json::array();
    for (const auto& d : r.deletion)
        deletion.push_back({{"fraction", d.fraction}, {"accuracy_attention", d.accuracyAttention},
                            {"accuracy_random", d.accuracyRandom}, {"tv_attention", d.tvAttention},
                            {"tv_random", d.tvRandom}});
    for (const auto& b : r.reliability)
        reliability.push_back({{"low", b.low}, {"high", b.high}, {"count", b.count},
                               {"mean_attention", b.meanAttention}, {"on_object", b.onObject}});
    return nlohmann::json{{"schema", "saccade.faithfulness"},
                          {"version", 1},
                          {"caveat", kAttentionCaveat},
                          {"dataset", r.dataset},
                          {"rule", r.rule},
                          {"images", r.images},
                          {"grid", {r.rows, r.cols}},
                          {"mass_in_box_per_step", r.massPerStep},
                          {"uniform_mass", r.uniformMass},
                          {"pointing_per_step", r.pointingPerStep},
                          {"deletion", deletion},
                          {"rank_correlation", r.rankCorrelation},
                          {"correlation_images", r.correlationImages},
                          {"reliability", reliability},
                          {"expected_calibration_error", r.expectedCalibrationError},
                          {"seconds", r.seconds}}
        .dump(indent);
}

}  // namespace saccade
