#pragma once
// How far attention can move without changing the answer (Jain and Wallace 2019, "Attention is
// not Explanation", section 4.2). For a model with soft attention over a grid of cells, a search
// for the attention distribution farthest from the learned one, in Jensen-Shannon divergence,
// whose output stays within a tolerance of the model's own:
//
//   maximise  JS(alpha_adv, alpha) - penalty * max(0, TV(y_adv, y) - epsilon)
//   over      alpha_adv = softmax(z)   (every attention step's distribution, z free logits)
//
// by Adam on z from the learned log-attention plus seeded Gaussian noise (restarts: several
// starts, the farthest kept). JS is in nats (its maximum is ln 2), the mean over the model's
// attention steps; TV is the total variation distance between the class distributions. Every
// iterate is checked, and an image reports the farthest one with TV <= epsilon (the learned
// attention itself, JS 0, when no other stays within it): reported TVs never exceed epsilon.
//
// The model supplies its head on a given attention through GradientForward::attentionHead
// (models/gradient_forward.h); the search never asks which family it is. Deterministic for a
// seed on one device: image `index` always starts from the same noise, batched or alone.
// Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "data/dataset.h"
#include "data/image.h"
#include "models/attention_model.h"

namespace saccade {

struct AdversarialOptions {
    double epsilon = 0.01;       ///< TV tolerance on the output, in (0, 1)
    int steps = 1000;            ///< Adam steps per start (>= 1)
    int restarts = 1;            ///< seeded starts per image (>= 1); the farthest feasible kept
    double learningRate = 0.1;   ///< Adam on the attention logits (> 0)
    double penalty = 500;        ///< lambda of the relaxed constraint (> 0)
    double initNoise = 0.5;      ///< std of the noise added to the learned log-attention (> 0)
    std::uint64_t seed = 1;
    int batch = 50;              ///< images searched together (>= 1)
};

/// One image to search: the model's input size and channels; `index` picks its noise.
struct AdversarialInput {
    Image image;
    std::string id;
    std::optional<int> label;
    std::uint64_t index = 0;  ///< the dataset index (0 for a file): seeds its starts
};

/// One image's result. Maps are per attention step, row-major over the rows x cols cells.
struct AdversarialImage {
    std::string id;
    std::uint64_t index = 0;  ///< the input's index
    std::optional<int> label;
    int predicted = -1, adversarialPredicted = -1;  ///< argmax under the learned / adversarial attention
    bool predictionChanged = false;
    double js = 0;                 ///< nats, mean over steps of JS(adversarial_t, learned_t)
    std::vector<double> jsSteps;   ///< per step
    double tv = 0;                 ///< TV(y_adversarial, y) <= epsilon
    std::vector<double> outputProbs, adversarialProbs;             ///< class probabilities
    std::vector<std::vector<double>> learned, adversarial;         ///< [T][L]
};

struct AdversarialReport {
    std::string model, rule = "soft", dataset;  ///< dataset: empty for single images
    AdversarialOptions options;
    int rows = 0, cols = 0, attentionSteps = 0;
    double jsMax = 0;  ///< ln 2
    std::vector<AdversarialImage> images;
    /// Over the images (null when none): JS median and mean, the share with JS > 0.5 ln 2 (all
    /// of them within epsilon by construction), the mean and largest TV.
    std::optional<double> jsMedian, jsMean, shareAboveHalf, tvMean, tvMax;
    int predictionsChanged = 0;
    double seconds = 0;
};

/// The options' own checks, one line each: epsilon in (0, 1), steps, restarts and batch >= 1,
/// learning rate, penalty and noise > 0.
Result<Unit> checkAdversarialOptions(const AdversarialOptions& options);

/// The search on each input. Errors: bad options, "X has no soft attention to replace" for a
/// model without an attention head, an image of the wrong size, cancelled by `progress`.
Result<AdversarialReport> adversarialAttention(AttentionModel& model, const std::vector<AdversarialInput>& inputs,
                                               const AdversarialOptions& options, const Progress& progress = {});

/// The search on the first `limit` images of `split` (indices 0..limit-1, each seeded by its
/// index), batched; the report names the dataset.
Result<AdversarialReport> adversarialAttentionOnSplit(AttentionModel& model, const Dataset& dataset, Split split,
                                                      std::int64_t limit, const AdversarialOptions& options,
                                                      const Progress& progress = {});

/// JSON (schema "saccade.adversarial_attention", version 1); `maps` false leaves the per-image
/// maps out (a split's summary stays). Unmeasured figures are null.
std::string adversarialToJson(const AdversarialReport& report, bool maps = true, int indent = 2);

}  // namespace saccade
