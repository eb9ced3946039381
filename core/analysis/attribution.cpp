#include "analysis/attribution.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <torch/torch.h>

#include "analysis/attribution_gradients.h"
#include "analysis/deletion_curves.h"
#include "analysis/faithfulness.h"
#include "metrics/attention_regions.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"

namespace saccade {

namespace {

bool isAttributionMethod(const std::string& name) {
    const auto& all = attributionMethods();
    return std::find(all.begin(), all.end(), name) != all.end();
}

std::string joinedMethodNames(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

Result<Unit> checkAttributionTarget(int target, int classes) {
    if (target < 0 || target >= classes)
        return Error{"target class " + std::to_string(target) + " is out of range: the model has " +
                     std::to_string(classes) + " classes (0-" + std::to_string(classes - 1) + ")"};
    return Unit{};
}

// The baseline of integrated gradients as a [1, C, S, S] tensor like x.
Result<torch::Tensor> igBaselineTensor(const AttentionModel& model, const torch::Tensor& x, const AttributionOptions& o) {
    if (o.baseline == "black") return torch::zeros_like(x);
    if (o.baseline == "mean") return x.mean({2, 3}, /*keepdim=*/true).expand_as(x).contiguous();
    const Image& b = *o.baselineImage;
    const int s = model.imageSize(), c = model.channels();
    if (b.width != s || b.height != s || b.channels != c)
        return Error{"the baseline image is " + std::to_string(b.width) + "x" + std::to_string(b.height) + " with " +
                     std::to_string(b.channels) + " channel(s); the model takes " + std::to_string(s) + "x" +
                     std::to_string(s) + " with " + std::to_string(c)};
    return modelInput(b, s, c, x.device());
}

// Every pixel's value: |attribution| and the signed value, each summed over channels.
void setAttributionPixels(AttributionMap& map, const torch::Tensor& pixels) {
    const auto magnitude = pixels.abs().sum(/*dim=*/0).contiguous();
    const auto signedSum = pixels.sum(/*dim=*/0).contiguous();
    map.magnitude.assign(magnitude.data_ptr<double>(), magnitude.data_ptr<double>() + magnitude.numel());
    map.signedMap.assign(signedSum.data_ptr<double>(), signedSum.data_ptr<double>() + signedSum.numel());
}

// A per-cell map (rows x cols) spread over the pixels of each cell.
std::vector<double> attributionCellsToPixels(const std::vector<double>& cells, int rows, int cols, int width, int height) {
    std::vector<double> pixels(size_t(width) * size_t(height), 0.0);
    for (int i = 0; i < rows * cols; ++i) {
        const Box b = cellBox(rows, cols, width, height, i);
        for (int y = int(b.y); y < int(b.y + b.h); ++y)
            for (int x = int(b.x); x < int(b.x + b.w); ++x) pixels[size_t(y) * size_t(width) + size_t(x)] = cells[size_t(i)];
    }
    return pixels;
}

// The pixel magnitude summed per cell, normalised to sum 1 (all zeros when the map is).
std::vector<double> poolAttributionToCells(const std::vector<double>& pixels, int rows, int cols, int width, int height) {
    std::vector<double> cells(size_t(rows) * size_t(cols), 0.0);
    double total = 0;
    for (int i = 0; i < rows * cols; ++i) {
        const Box b = cellBox(rows, cols, width, height, i);
        for (int y = int(b.y); y < int(b.y + b.h); ++y)
            for (int x = int(b.x); x < int(b.x + b.w); ++x) cells[size_t(i)] += pixels[size_t(y) * size_t(width) + size_t(x)];
        total += cells[size_t(i)];
    }
    if (total > 0)
        for (auto& c : cells) c /= total;
    return cells;
}

GridDistribution attributionAsGrid(const std::vector<double>& values, int rows, int cols) {
    GridDistribution g{rows, cols, {}};
    double total = 0;
    for (double v : values) total += v;
    for (double v : values) g.probs.push_back(float(total > 0 ? v / total : 0.0));
    return g;
}

// Mass in the box and the pointing game, as attention's (metrics/attention_regions.h), on the
// cell grid and on the pixels.
void scoreAttributionOnBox(AttributionMap& map, const Box& box) {
    TraceStep cells, pixels;
    cells.grid = attributionAsGrid(map.cells, map.rows, map.cols);
    pixels.grid = attributionAsGrid(map.magnitude, map.height, map.width);
    map.massInBox = gridMassInBox(*cells.grid, map.width, map.height, box);
    map.massInBoxPixels = gridMassInBox(*pixels.grid, map.width, map.height, box);
    map.pointing = pointsAt(cells, map.width, map.height, box);
    map.pointingPixels = pointsAt(pixels, map.width, map.height, box);
    map.boxArea = std::max(0.0, Box{0, 0, double(map.width), double(map.height)}.intersectionArea(box)) /
                  (double(map.width) * map.height);
}

// Occlusion: each cell filled alone; the fall of the target's probability.
Result<Unit> occlusionAttribution(AttentionModel& model, const Image& image, const AttributionOptions& o, AttributionMap& map) {
    std::vector<Image> copies{image};
    for (int c = 0; c < map.rows * map.cols; ++c) copies.push_back(occludeCells(image, map.rows, map.cols, {c}));
    auto batched = batchedOutputProbs(model, copies, map.rule, o.seed);
    if (!batched) return Error{batched.error()};
    const auto& probs = *batched;
    const auto& intact = probs.front();
    map.predicted = int(std::max_element(intact.begin(), intact.end()) - intact.begin());
    map.target = o.target.value_or(map.predicted);
    if (auto ok = checkAttributionTarget(map.target, int(intact.size())); !ok) return Error{ok.error()};
    std::vector<double> fall, size;
    for (int c = 0; c < map.rows * map.cols; ++c) {
        fall.push_back(double(intact[size_t(map.target)]) - probs[size_t(c) + 1][size_t(map.target)]);
        size.push_back(std::abs(fall.back()));
    }
    map.signedMap = attributionCellsToPixels(fall, map.rows, map.cols, map.width, map.height);
    map.magnitude = attributionCellsToPixels(size, map.rows, map.cols, map.width, map.height);
    map.forwards = std::int64_t(copies.size());
    return Unit{};
}

// The gradient methods, on the model's differentiable forward.
Result<Unit> gradientAttribution(AttentionModel& model, const Image& image, const AttributionOptions& o, AttributionMap& map) {
    GradientForward* f = model.gradientForward();
    if (!f) return Error{model.displayName() + " has no differentiable forward for " + o.method};
    if (o.method == "gradcam" && !f->hasFeatureGrid())
        return Error{model.displayName() + " has no convolutional grid for Grad-CAM"};
    if (o.method == "gradient-rollout" && !f->hasAttentionGraph())
        return Error{model.displayName() + " has no transformer attention in its graph for gradient-weighted rollout"};
    auto x = modelInput(image, model.imageSize(), model.channels(), f->device());
    if (!x) return Error{x.error()};
    if (map.rule.empty()) map.rule = f->defaultRule();
    const auto logits = f->logits(*x, map.rule);  // checks the rule before any gradient
    map.predicted = int(logits.argmax(/*dim=*/1).item<std::int64_t>());
    map.target = o.target.value_or(map.predicted);
    if (auto ok = checkAttributionTarget(map.target, int(logits.size(1))); !ok) return Error{ok.error()};
    GradientAttribution a;
    if (o.method == "gradient" || o.method == "gradient-x-input") {
        a = plainGradient(*f, *x, map.rule, map.target, o.method == "gradient-x-input");
    } else if (o.method == "integrated-gradients") {
        auto baseline = igBaselineTensor(model, *x, o);
        if (!baseline) return Error{baseline.error()};
        a = integratedGradients(*f, *x, *baseline, map.rule, map.target, o.steps, o.quadrature);
        map.baseline = o.baseline;
        map.fInput = a.fInput;
        map.fBaseline = a.fBaseline;
        map.attributionSum = a.pixels.sum().item<double>();
        const double change = a.fInput - a.fBaseline;
        if (std::abs(change) > 1e-12) map.completenessError = std::abs(*map.attributionSum - change) / std::abs(change);
    } else if (o.method == "smoothgrad") {
        a = smoothGrad(*f, *x, map.rule, map.target, o.samples, o.sigma, o.seed);
    } else if (o.method == "gradient-rollout") {
        a = gradientRollout(*f, *x, map.rule, map.target);
    } else {
        a = gradCam(*f, *x, map.rule, map.target);
    }
    map.forwards = a.forwards + 1;
    if (a.pixels.defined()) {
        setAttributionPixels(map, a.pixels);
        return Unit{};
    }
    // Grad-CAM and rollout: the grid's cells over the pixels; the signed map is Grad-CAM's map
    // before the ReLU (rollout's is non-negative already).
    const int rows = int(a.grid.size(0)), cols = int(a.grid.size(1));
    const auto flat = a.grid.contiguous();
    std::vector<double> raw(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel()), positive;
    for (double v : raw) positive.push_back(std::max(0.0, v));
    map.signedMap = attributionCellsToPixels(raw, rows, cols, map.width, map.height);
    map.magnitude = attributionCellsToPixels(positive, rows, cols, map.width, map.height);
    return Unit{};
}

}  // namespace

const std::vector<std::string>& attributionMethods() {
    static const std::vector<std::string> methods{"gradient", "gradient-x-input", "integrated-gradients",
                                                  "smoothgrad", "occlusion", "gradcam", "gradient-rollout"};
    return methods;
}

Result<Unit> checkAttributionOptions(const AttributionOptions& o) {
    if (!isAttributionMethod(o.method))
        return Error{"unknown attribution method '" + o.method + "' (use " + joinedMethodNames(attributionMethods()) + ")"};
    if (o.steps < 1) return Error{"--steps must be at least 1, got " + std::to_string(o.steps)};
    if (o.samples < 1) return Error{"--samples must be at least 1, got " + std::to_string(o.samples)};
    if (!(o.sigma > 0) || !std::isfinite(o.sigma)) return Error{"--sigma must be a positive number"};
    if (o.quadrature != "trapezoid" && o.quadrature != "midpoint" && o.quadrature != "gauss-legendre")
        return Error{"unknown quadrature '" + o.quadrature + "' (use trapezoid, midpoint or gauss-legendre)"};
    if (o.baseline != "black" && o.baseline != "mean" && o.baseline != "image")
        return Error{"unknown baseline '" + o.baseline + "' (use black, mean or an image file)"};
    if (o.baseline == "image" && !o.baselineImage) return Error{"the baseline 'image' needs an image"};
    if (o.cellsPerSide < 1) return Error{"the cell grid needs at least one cell per side"};
    return Unit{};
}

Result<AttributionMap> attribute(AttentionModel& model, const Image& image, const AttributionOptions& o,
                                 const std::optional<GroundTruth>& truth) {
    if (auto ok = checkAttributionOptions(o); !ok) return Error{ok.error()};
    if (model.outputKind() != "class") return Error{"attribution maps are for classifiers; this model outputs " + model.outputKind()};
    const auto start = std::chrono::steady_clock::now();
    AttributionMap map;
    map.method = o.method;
    map.rule = o.rule;
    map.width = map.height = model.imageSize();
    const int side = model.cellGrid().side;
    map.rows = map.cols = side > 0 ? side : o.cellsPerSide;
    try {
        if (o.method == "occlusion") {
            if (map.rule.empty()) map.rule = model.deterministicRule();
            if (auto ok = occlusionAttribution(model, image, o, map); !ok) return Error{ok.error()};
        } else if (auto ok = gradientAttribution(model, image, o, map); !ok) {
            return Error{ok.error()};
        }
    } catch (const c10::Error& e) {
        const std::string what = e.what_without_backtrace();
        return Error{o.method + " failed: " + what.substr(0, what.find('\n'))};
    }
    map.cells = poolAttributionToCells(map.magnitude, map.rows, map.cols, map.width, map.height);
    if (truth && !truth->boxes.empty()) scoreAttributionOnBox(map, truth->boxes.front());
    map.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return map;
}

}  // namespace saccade
