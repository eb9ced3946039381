#pragma once
// The estimator lab: gradient estimators of d E[r] / d logits on a categorical softmax(logits)
// with a known reward per category, against the exact gradient p_j (r_j - E[r]).
//   reinforce                    score function, no baseline
//   reinforce-moving-average     score function, baseline = moving average of earlier rewards
//   reinforce-optimal-baseline   score function, the constant b* that minimises the summed
//                                variance: b* = sum_i p_i r_i g_i / sum_i p_i g_i,
//                                g_i = ||e_i - p||^2 = 1 - 2 p_i + sum_k p_k^2 (from the exact p)
//   gumbel-st:TAU                straight-through Gumbel-softmax at temperature TAU, f(y) = r . y
// Per estimator: N one-sample estimates (the three REINFORCE variants share the same N draws;
// every temperature shares the same Gumbel noise), their mean, standard error, bias, variance,
// histograms on bin edges shared by all estimators, and, for the score-function estimators, the
// variance in closed form. Then training: plain gradient ascent on E[r] from the same logits and
// seed under each estimator (and the exact gradient), the probabilities after every step.
// Plain types only: no LibTorch in this header. Deterministic: the same input gives the same
// numbers on the same machine.

#include <cstdint>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"

namespace saccade {

/// Bounds on the work one run may ask for.
constexpr std::int64_t kEstimatorLabMaxCells = 10'000'000;  ///< samples x categories
/// The exact figures (covariances, the optimal baseline) grow with the square of the categories:
/// 1,000 categories at the cell limit take about 10 s on one core; 10,000 took minutes.
constexpr std::int64_t kEstimatorLabMaxCategories = 1000;
constexpr std::int64_t kEstimatorLabMaxTrainSteps = 10'000;
constexpr std::int64_t kEstimatorLabMaxTrainCells =
    100'000'000;  ///< steps x samples/step x categories
constexpr std::size_t kEstimatorLabMaxTemperatures = 8;
constexpr int kEstimatorLabMaxBins = 400;
/// Logits may span at most this much (wider ones round a probability to nothing).
constexpr double kEstimatorLabMaxLogitSpan = 100;

struct EstimatorLabInput {
    /// The categorical: give exactly one of probs (each > 0, summing to 1 within 1e-6) or logits.
    std::vector<double> probs;
    std::vector<double> logits;
    std::vector<double> rewards;    ///< one per category, in [-1e9, 1e9]
    std::int64_t samples = 20'000;  ///< one-sample estimates per estimator, >= 2
    std::uint64_t seed = 1;
    double baselineDecay = 0.9;  ///< of the moving-average baseline, in [0, 1]
    std::vector<double> temperatures{0.1, 0.5, 1.0, 2.0};  ///< Gumbel ST, distinct
    int bins = 40;                  ///< histogram bins per logit, 2..kEstimatorLabMaxBins
    std::int64_t trainSteps = 100;  ///< 0 for no training
    double learningRate = 0.1;      ///< gradient ascent on the logits, > 0
    std::int64_t trainSamples = 4;  ///< samples averaged per training step, >= 1
};

/// Counts of one logit's N estimates in the shared bins; estimates outside the edges are counted
/// in below and above, so below + sum(counts) + above = N.
struct EstimatorHistogram {
    std::vector<std::int64_t> counts;
    std::int64_t below = 0;
    std::int64_t above = 0;
};

struct EstimatorSummary {
    std::string name;        ///< "reinforce", ..., "gumbel-st:0.5"
    double temperature = 0;  ///< gumbel-st only
    double baseline = 0;     ///< the constant baseline (0, b*); NaN for moving-average and gumbel
    // Per logit j:
    std::vector<double> mean;
    std::vector<double> standardError;  ///< sqrt(variance / N)
    std::vector<double> bias;           ///< mean - exact
    std::vector<double> variance;       ///< of one sample's estimate (unbiased sample variance)
    /// The expected variance in closed form (score-function estimators only; else empty):
    /// constant b: sum_i p_i (r_i - b)^2 (delta_ij - p_j)^2 - exact_j^2; moving average: that
    /// averaged over the baseline's own distribution at each of the N draws.
    std::vector<double> closedFormVariance;
    double totalVariance = 0;    ///< summed over logits
    double closedFormTotal = 0;  ///< NaN where there is no closed form
    double biasNorm = 0;         ///< ||mean - exact||_2
    double maxAbsZ = 0;          ///< max_j |bias_j| / stderr_j
    double varianceRatio = 0;    ///< reinforce's totalVariance / this one's (> 1: lower)
    std::vector<EstimatorHistogram> histograms;  ///< per logit
};

/// One training run: probabilities at step 0 (the start) and after every step.
struct EstimatorTrajectory {
    std::string name;                        ///< "exact" or an estimator's name
    std::vector<std::vector<double>> probs;  ///< [steps + 1][L]
    std::vector<double> expectedReward;      ///< [steps + 1]: sum_i p_i r_i
};

struct EstimatorLabResult {
    std::vector<double> probs, logits, rewards;  ///< the problem (logits = log p when given p)
    std::vector<double> exact;                   ///< p_j (r_j - E[r])
    double expectedReward = 0;
    double optimalBaseline = 0;  ///< b*
    std::int64_t samples = 0;
    std::uint64_t seed = 0;
    double baselineDecay = 0;
    /// Per logit: bins + 1 increasing edges, shared by every estimator. They span all but 0.5% in
    /// each tail of the score-function estimates and all but 5% of the Gumbel ones, and the
    /// exact gradient and every mean.
    std::vector<std::vector<double>> binEdges;
    std::vector<EstimatorSummary> estimators;  ///< in the order of the header comment
    std::int64_t trainSteps = 0;
    double learningRate = 0;
    std::int64_t trainSamples = 0;
    std::vector<EstimatorTrajectory> training;  ///< "exact" first, then one per estimator
};

/// The estimator names for these temperatures, in result order.
std::vector<std::string> estimatorNames(const std::vector<double>& temperatures);

/// Runs the lab. Errors (one line each): probs and logits both or neither given, mismatched
/// lengths, non-finite numbers, probabilities <= 0 or not summing to 1 within 1e-6, logits
/// spanning more than kEstimatorLabMaxLogitSpan, samples < 2, sizes above the bounds above,
/// temperatures outside [kMinGumbelTemperature, kMaxGumbelTemperature] or repeated, a decay
/// outside [0, 1], a learning rate <= 0, training that diverges, and cancellation through
/// `progress`. Runs on the calling thread; call from one thread per input.
Result<EstimatorLabResult> runEstimatorLab(const EstimatorLabInput& input,
                                           const Progress& progress = {});

/// The result as one JSON object, schema "saccade.estimators", version 1.
std::string estimatorLabToJson(const EstimatorLabResult& result, int indent = 2);

}  // namespace saccade
