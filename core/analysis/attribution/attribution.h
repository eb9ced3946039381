#pragma once
// Attribution maps for an image classifier, beside its attention (issue 37). Every method has one
// shape, as Captum's attribute(inputs, target, baselines): a model, an image, a target class and
// options in; a map over the model's input pixels and over its cell grid out, scored on the
// image's box exactly as attention is (metrics/attention_regions.h).
//
// What is attributed is the target class's logit (the score before the softmax) under the rule
// differentiated (the model's deterministic rule unless one is named); occlusion, which needs no
// gradient, reads the target's probability from AttentionModel::outputProbs.
//
// Methods (pixel values in [0, 1]; a map's magnitude is |attribution| summed over channels):
// - gradient:              d logit / d pixel at the image (Simonyan et al. 2014).
// - gradient-x-input:      the gradient times the pixel.
// - integrated-gradients:  (x - baseline) times the mean gradient along the straight path from the
//   baseline to x (Sundararajan et al. 2017), the path's points batched; the trapezoid rule over
//   steps + 1 points, or the midpoint or Gauss-Legendre rule (Captum's default) over steps points. completenessError says how far the
//   sum of the attributions is from f(x) - f(baseline).
// - smoothgrad:            the mean gradient over `samples` copies with Gaussian noise of std
//   `sigma` (pixel units), drawn from `seed` (Smilkov et al. 2017).
// - occlusion:             each cell of the grid filled with 0 alone (analysis/faithfulness.h's
//   occludeCells); the cell's value is the fall of the target's probability.
// - gradcam:               ReLU of the grid's channels weighted by their mean gradient (Selvaraju
//   et al. 2017), on the model's convolutional feature grid (models/gradient_forward.h).
// - gradient-rollout:      gradient-weighted attention rollout (Chefer et al. 2021) for
//   transformers that hand out their attention in the graph (Saccade's ViT): beside plain
//   rollout, each layer's attention weighted by the target's gradient, its ReLU, mean over heads.
// A model that outputs words (a captioner) is attributed one word at a time: the word at
// `step` of the caption it gives the image under the rule (AttentionModel::wordForward), its
// logit with the decoder teacher-forced on the caption's earlier words; occlusion reads that
// word's probability from the same forward. The box scored is the one of the object the word
// names (the trace's wordObject), beside the attention's mass at that step.
// Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/image.h"
#include "models/attention_model.h"
#include "trace/trace.h"

namespace saccade {

/// The method names, in the order a user sees them.
const std::vector<std::string>& attributionMethods();

/// The completeness error integrated gradients aim at by default (the CLI without --steps, the GUI): 1%.
constexpr double kDefaultIgTolerance = 0.01;

struct AttributionOptions {
    std::string method = "gradient";
    std::optional<int> target;        ///< the class attributed; none: the predicted one
    std::string rule;                 ///< the rule differentiated; empty: the model's deterministic rule
    int steps = 64;                   ///< integrated gradients: intervals of the path (>= 1); the first try with a tolerance
    /// Integrated gradients: double the steps from `steps` until the completeness error is at most
    /// this fraction, or the steps would pass maxSteps; none: exactly `steps`.
    std::optional<double> tolerance;
    int maxSteps = 1024;              ///< integrated gradients with a tolerance: the most steps tried
    /// Integrated gradients: "trapezoid" (steps + 1 points), "midpoint" or "gauss-legendre" (steps points).
    std::string quadrature = "gauss-legendre";  ///< Captum's default: under 1% on the soft patch models at 64
    /// Integrated gradients: "black" (zeros), "mean" (every pixel the image's own mean per
    /// channel) or "image" (baselineImage, of the model's input size and channels).
    std::string baseline = "black";
    std::optional<Image> baselineImage;
    int samples = 16;                 ///< smoothgrad: noisy copies (>= 1)
    double sigma = 0.15;              ///< smoothgrad: noise std in pixel units (> 0)
    std::uint64_t seed = 1;           ///< smoothgrad's noise; occlusion's rule where it samples
    int cellsPerSide = 10;            ///< the cell grid of a model without one of its own
    /// Models that output words: the word attributed, by its index in the model's caption (0: the
    /// first word); none: the first word that names an object of the truth, else the first word.
    std::optional<int> step;
};

/// One attribution map. Pixel maps are row-major over the model's input (width x height).
struct AttributionMap {
    std::string method, rule, baseline;  ///< baseline: integrated gradients only, else empty
    int target = -1;
    int predicted = -1;                  ///< the class the model gives the image
    int width = 0, height = 0;
    std::vector<double> magnitude;       ///< per pixel, >= 0
    std::vector<double> signedMap;       ///< per pixel, summed over channels; empty where not meaningful
    int rows = 0, cols = 0;              ///< the cell grid (the model's, else cellsPerSide)
    std::vector<double> cells;           ///< magnitude per cell, normalised to sum 1 (zeros: no signal)
    std::optional<double> fInput, fBaseline, attributionSum, completenessError;  ///< integrated gradients
    std::optional<int> steps;            ///< integrated gradients: the steps of the map given
    std::optional<double> tolerance;     ///< integrated gradients: the tolerance asked for, if any
    /// Integrated gradients with a tolerance: whether the error came within it (none: f(x) = f(baseline),
    /// so there is no relative error); convergence says why not where it did not.
    std::optional<bool> converged;
    std::string convergence;
    std::optional<double> massInBox, massInBoxPixels;  ///< share of the map inside the box (cells, pixels)
    std::optional<bool> pointing, pointingPixels;      ///< the largest cell / pixel falls on the box
    std::optional<double> boxArea;                     ///< the box's share of the image (uniform's mass)
    std::int64_t forwards = 0;                         ///< images through the model
    double seconds = 0;
    /// Models that output words: the step attributed, its word (the target's by default), the
    /// caption, the object of the truth the word names (-1: none; the box scored), and the
    /// attention at that step scored on that box as the map is (cells).
    std::optional<int> step;
    std::string word, caption;
    int object = -1;
    std::optional<double> attentionMassInBox;
    std::optional<bool> attentionPointing;
};

/// The map of `options.method` on `image` (of the model's input size and channels). Errors, one
/// line each: an unknown method, a target out of range, steps or samples < 1, sigma <= 0, an
/// unknown baseline or quadrature, a baseline image of the wrong size, a rule the model cannot
/// differentiate, a model without gradients, "X has no convolutional grid for Grad-CAM".
/// With `truth` and a box, the box figures are set (the first box), else they stay empty.
/// Models that output words: also a step past the caption's end, a step given to a model that
/// outputs no words, a method the model cannot support; the box is the named object's (none for
/// a word that names none).
Result<AttributionMap> attribute(AttentionModel& model, const Image& image, const AttributionOptions& options,
                                 const std::optional<GroundTruth>& truth = std::nullopt);

/// Whether the gradient method `method` runs on `model` through `f` (its gradientForward, may be
/// null): one line naming what the model lacks (a differentiable forward, a convolutional grid
/// for Grad-CAM, attention in the graph for gradient-weighted rollout).
Result<Unit> checkGradientMethod(const AttentionModel& model, GradientForward* f, const std::string& method);
/// The options' own checks (method, steps, tolerance, samples, sigma, baseline, quadrature), before any model.
Result<Unit> checkAttributionOptions(const AttributionOptions& options);

/// JSON (schema "saccade.attribution", version 1); unmeasured figures are null. `pixels` adds the
/// per-pixel magnitude rows.
std::string attributionToJson(const AttributionMap& map, bool pixels = false, int indent = 2);

}  // namespace saccade
