#include "analysis/attribution/attribution.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <iomanip>
#include <functional>
#include <memory>

#include <torch/torch.h>

#include "analysis/attribution/attribution_gradients.h"
#include "analysis/attribution/deletion_curves.h"
#include "analysis/attribution/faithfulness.h"
#include "metrics/attention_regions.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "trace/rule_kind.h"

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

using ProbsOf = std::function<Result<std::vector<std::vector<float>>>(const std::vector<Image>&)>;

// Occlusion: each cell filled alone; the fall of the target's probability.
Result<Unit> occlusionAttribution(const ProbsOf& probsOf, const Image& image, const AttributionOptions& o, AttributionMap& map) {
    std::vector<Image> copies{image};
    for (int c = 0; c < map.rows * map.cols; ++c) copies.push_back(occludeCells(image, map.rows, map.cols, {c}));
    auto batched = probsOf(copies);
    if (!batched) return Error{batched.error()};
    const auto& probs = *batched;
    const auto& intact = probs.front();
    map.predicted = int(std::max_element(intact.begin(), intact.end()) - intact.begin());
    map.target = o.target.value_or(map.target >= 0 ? map.target : map.predicted);
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

// A word forward's probabilities of images, in chunks without gradients: occlusion's reading of
// a word step.
Result<std::vector<std::vector<float>>> wordStepProbs(GradientForward& f, const AttentionModel& model,
                                                      const std::vector<Image>& images, const std::string& rule) {
    torch::NoGradGuard noGrad;
    std::vector<std::vector<float>> out;
    constexpr std::size_t kChunk = 64;
    for (std::size_t first = 0; first < images.size(); first += kChunk) {
        std::vector<torch::Tensor> rows;
        for (std::size_t i = first; i < std::min(images.size(), first + kChunk); ++i) {
            auto x = modelInput(images[i], model.imageSize(), model.channels(), f.device());
            if (!x) return Error{x.error()};
            rows.push_back(*x);
        }
        const auto probs = torch::softmax(f.logits(torch::cat(rows), rule), /*dim=*/1).to(torch::kCPU, torch::kFloat).contiguous();
        for (std::int64_t r = 0; r < probs.size(0); ++r)
            out.emplace_back(probs[r].data_ptr<float>(), probs[r].data_ptr<float>() + probs.size(1));
    }
    return out;
}

// A model that outputs words: its caption of the image under the rule, the step attributed, its
// word as the default target, the object it names and the attention there; the step's forward.
Result<std::shared_ptr<GradientForward>> wordStepForward(AttentionModel& model, const Image& image,
                                                         const AttributionOptions& o,
                                                         const std::optional<GroundTruth>& truth, AttributionMap& map) {
    if (map.rule.empty()) {
        const auto rules = model.evaluationRules();
        map.rule = rules.empty() ? model.deterministicRule() : rules.front();
    }
    auto t = model.trace(image, map.rule, o.seed, "attribution", truth);
    if (!t) return Error{t.error()};
    std::vector<std::string> words;
    for (const auto& s : t->steps) words.push_back(s.token);
    int step = 0;
    if (o.step) {
        step = *o.step;
    } else {
        const auto named = std::find_if(t->steps.begin(), t->steps.end(), [](const TraceStep& s) { return s.wordObject >= 0; });
        step = named == t->steps.end() ? 0 : int(named - t->steps.begin());
    }
    if (step < 0 || step >= int(words.size()))
        return Error{"step " + std::to_string(step) + " is past the end of the caption '" + t->output.text + "': steps 0-" +
                     std::to_string(words.size() - 1) + " (" + std::to_string(words.size() - 1) + ": <end>)"};
    auto f = model.wordForward(words, step, map.rule);
    if (!f) return Error{f.error()};
    const TraceStep& at = t->steps[size_t(step)];
    map.step = step;
    map.word = at.token;
    map.caption = t->output.text;
    const auto names = model.classNames();
    const auto id = std::find(names.begin(), names.end(), at.token);
    map.target = id == names.end() ? -1 : int(id - names.begin());
    if (truth && at.wordObject >= 0 && at.wordObject < int(truth->boxes.size())) {
        map.object = at.wordObject;
        const Box& box = truth->boxes[size_t(map.object)];
        if (at.grid) {
            map.attentionMassInBox = std::min(1.0, gridMassInBox(*at.grid, map.width, map.height, box));
            map.attentionPointing = pointsAt(at, map.width, map.height, box);
        }
    }
    return f;
}

// Whether `rule` chooses cells (argmax, sample, ksample:K): the output then jumps where the choice
// changes along the path, and integrated gradients need not converge.
bool choosesCells(const std::string& rule) {
    return isRule(rule, RuleKind::Argmax) || isRule(rule, RuleKind::Sample) || isRule(rule, RuleKind::KSample);
}

// Integrated gradients with `o.steps`, or, with a tolerance, doubling the steps until the
// completeness error is within it; the figures (and how it converged) go into `map`.
GradientAttribution convergedIntegratedGradients(GradientForward& f, const torch::Tensor& x, const torch::Tensor& baseline,
                                                 const AttributionOptions& o, AttributionMap& map) {
    GradientAttribution a;
    std::int64_t forwards = 0;
    for (int steps = o.steps;; steps *= 2) {
        a = integratedGradients(f, x, baseline, map.rule, map.target, steps, o.quadrature);
        forwards += a.forwards;
        map.steps = steps;
        map.fInput = a.fInput;
        map.fBaseline = a.fBaseline;
        map.attributionSum = a.pixels.sum().item<double>();
        const double change = a.fInput - a.fBaseline;
        map.completenessError.reset();
        if (std::abs(change) > 1e-12) map.completenessError = std::abs(*map.attributionSum - change) / std::abs(change);
        if (!o.tolerance || !map.completenessError || *map.completenessError <= *o.tolerance || steps * 2 > o.maxSteps) break;
    }
    a.forwards = forwards;
    map.baseline = o.baseline;
    map.tolerance = o.tolerance;
    if (o.tolerance && map.completenessError) {
        map.converged = *map.completenessError <= *o.tolerance;
        if (!*map.converged) {
            std::ostringstream why;
            why << std::fixed << std::setprecision(1) << "integrated gradients did not converge: completeness error "
                << 100 * *map.completenessError << "% after " << *map.steps << " steps (tolerance "
                << 100 * *o.tolerance << "%)";
            if (choosesCells(map.rule))
                why << "; the rule '" << map.rule << "' chooses cells, so the output jumps where its choice changes "
                    << "along the path: attribute a rule that weighs every cell (soft) for a map that sums to the change";
            map.convergence = why.str();
        }
    }
    return a;
}

// The gradient methods, on the model's differentiable forward `f`.
Result<Unit> gradientAttribution(AttentionModel& model, GradientForward* f, const Image& image, const AttributionOptions& o,
                                 AttributionMap& map) {
    if (auto ok = checkGradientMethod(model, f, o.method); !ok) return Error{ok.error()};
    auto x = modelInput(image, model.imageSize(), model.channels(), f->device());
    if (!x) return Error{x.error()};
    if (map.rule.empty()) map.rule = f->defaultRule();
    const auto logits = f->logits(*x, map.rule);  // checks the rule before any gradient
    map.predicted = int(logits.argmax(/*dim=*/1).item<std::int64_t>());
    map.target = o.target.value_or(map.target >= 0 ? map.target : map.predicted);
    if (auto ok = checkAttributionTarget(map.target, int(logits.size(1))); !ok) return Error{ok.error()};
    GradientAttribution a;
    if (o.method == "gradient" || o.method == "gradient-x-input") {
        a = plainGradient(*f, *x, map.rule, map.target, o.method == "gradient-x-input");
    } else if (o.method == "integrated-gradients") {
        auto baseline = igBaselineTensor(model, *x, o);
        if (!baseline) return Error{baseline.error()};
        a = convergedIntegratedGradients(*f, *x, *baseline, o, map);
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

Result<Unit> checkGradientMethod(const AttentionModel& model, GradientForward* f, const std::string& method) {
    if (!f) return Error{model.displayName() + " has no differentiable forward for " + method};
    const bool inputGradient = method == "gradient" || method == "gradient-x-input" || method == "integrated-gradients" ||
                               method == "smoothgrad";
    if (inputGradient && !f->noInputGradient().empty())
        return Error{model.displayName() + " has no input gradient for " + method + ": " + f->noInputGradient()};
    auto hinted = [](const std::string& hint) { return hint.empty() ? hint : " (" + hint + ")"; };
    if (method == "gradcam" && !f->hasFeatureGrid())
        return Error{model.displayName() + " has no convolutional grid for Grad-CAM" + hinted(f->featureGridHint())};
    if (method == "gradient-rollout" && !f->hasAttentionGraph())
        return Error{model.displayName() + " has no transformer attention in its graph for gradient-weighted rollout" +
                     hinted(f->attentionGraphHint())};
    return Unit{};
}

const std::vector<std::string>& attributionMethods() {
    static const std::vector<std::string> methods{"gradient", "gradient-x-input", "integrated-gradients",
                                                  "smoothgrad", "occlusion", "gradcam", "gradient-rollout"};
    return methods;
}

Result<Unit> checkAttributionOptions(const AttributionOptions& o) {
    if (!isAttributionMethod(o.method))
        return Error{"unknown attribution method '" + o.method + "' (use " + joinedMethodNames(attributionMethods()) + ")"};
    if (o.steps < 1) return Error{"--steps must be at least 1, got " + std::to_string(o.steps)};
    if (o.tolerance && !(*o.tolerance > 0 && *o.tolerance < 1))
        return Error{"--tolerance must be a fraction between 0 and 1 (0.01: 1%), got " + (std::ostringstream() << *o.tolerance).str()};
    if (o.tolerance && o.maxSteps < o.steps)
        return Error{"--max-steps (" + std::to_string(o.maxSteps) + ") must be at least --steps (" + std::to_string(o.steps) + ")"};
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
    const bool words = traitsOf(model.outputKind()).wordSteps;
    if (o.step && !words)
        return Error{"--step picks a word of a caption; " + model.displayName() + " outputs a " + outputKindName(model.outputKind())};
    const auto start = std::chrono::steady_clock::now();
    AttributionMap map;
    map.method = o.method;
    map.rule = o.rule;
    map.width = map.height = model.imageSize();
    const int side = model.cellGrid().side;
    map.rows = map.cols = side > 0 ? side : o.cellsPerSide;
    try {
        std::shared_ptr<GradientForward> word;
        if (words) {
            auto f = wordStepForward(model, image, o, truth, map);
            if (!f) return Error{f.error()};
            word = *f;
        }
        GradientForward* f = words ? word.get() : model.gradientForward();
        if (o.method == "occlusion") {
            if (map.rule.empty()) map.rule = model.deterministicRule();
            const ProbsOf probsOf = [&](const std::vector<Image>& copies) {
                return words ? wordStepProbs(*f, model, copies, map.rule) : batchedOutputProbs(model, copies, map.rule, o.seed);
            };
            if (auto ok = occlusionAttribution(probsOf, image, o, map); !ok) return Error{ok.error()};
        } else if (auto ok = gradientAttribution(model, f, image, o, map); !ok) {
            return Error{ok.error()};
        }
    } catch (const c10::Error& e) {
        const std::string what = e.what_without_backtrace();
        return Error{o.method + " failed: " + what.substr(0, what.find('\n'))};
    }
    map.cells = poolAttributionToCells(map.magnitude, map.rows, map.cols, map.width, map.height);
    if (words && map.object >= 0)
        scoreAttributionOnBox(map, truth->boxes[size_t(map.object)]);
    else if (!words && truth && !truth->boxes.empty())
        scoreAttributionOnBox(map, truth->boxes.front());
    map.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return map;
}

}  // namespace saccade
