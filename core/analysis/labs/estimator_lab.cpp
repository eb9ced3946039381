#include "analysis/labs/estimator_lab.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "analysis/labs/estimator_problem.h"
#include "analysis/labs/estimator_training.h"
#include "attention/gradient_estimates.h"
#include "attention/selection.h"

namespace saccade {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kRoundoff = 1e-12;  // relative: below this a spread or a bias is rounding
// Histogram edges span these quantiles of every estimator: all but 0.5% in each tail of the
// score-function estimates (their rare large values are where their variance comes from), all
// but 5% in each tail of the Gumbel ones (at small temperatures near-ties give estimates of
// order 1/tau that would squeeze every other histogram into a few bins). What falls outside is
// counted.
constexpr double kScoreFunctionTail = 0.005;
constexpr double kGumbelTail = 0.05;

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

std::optional<Error> checkSizes(const EstimatorLabInput& in, std::int64_t categories) {
    if (categories > kEstimatorLabMaxCategories)
        return Error{"at most " + std::to_string(kEstimatorLabMaxCategories) + " categories, got " +
                     std::to_string(categories)};
    if (in.samples < 2) return Error{"need at least 2 samples, got " + std::to_string(in.samples)};
    if (in.samples > kEstimatorLabMaxCells / categories) {
        return Error{"samples x categories must be at most " +
                     std::to_string(kEstimatorLabMaxCells) + " (got " + std::to_string(in.samples) +
                     " x " + std::to_string(categories) + ")"};
    }
    if (!(in.baselineDecay >= 0 && in.baselineDecay <= 1))
        return Error{"the baseline decay must be in [0, 1], got " + number(in.baselineDecay)};
    if (in.temperatures.size() > kEstimatorLabMaxTemperatures)
        return Error{"at most " + std::to_string(kEstimatorLabMaxTemperatures) + " temperatures"};
    std::set<double> seen;
    for (double t : in.temperatures) {
        if (!(t >= kMinGumbelTemperature && t <= kMaxGumbelTemperature)) {
            return Error{"every temperature must be a number from " +
                         number(kMinGumbelTemperature) + " to " + number(kMaxGumbelTemperature) +
                         ", got " + number(t)};
        }
        if (!seen.insert(t).second) return Error{"temperature " + number(t) + " is listed twice"};
    }
    if (in.bins < 2 || in.bins > kEstimatorLabMaxBins)
        return Error{"bins must be from 2 to " + std::to_string(kEstimatorLabMaxBins) + ", got " +
                     std::to_string(in.bins)};
    if (in.trainSteps < 0 || in.trainSteps > kEstimatorLabMaxTrainSteps)
        return Error{"training steps must be from 0 to " +
                     std::to_string(kEstimatorLabMaxTrainSteps) + ", got " +
                     std::to_string(in.trainSteps)};
    if (in.trainSamples < 1 || in.trainSamples > kEstimatorLabMaxCells / categories)
        return Error{"samples per training step must be from 1 to " +
                     std::to_string(kEstimatorLabMaxCells / categories) + ", got " +
                     std::to_string(in.trainSamples)};
    if (in.trainSteps > 0 &&
        in.trainSteps * in.trainSamples > kEstimatorLabMaxTrainCells / categories) {
        return Error{"training steps x samples per step x categories must be at most " +
                     std::to_string(kEstimatorLabMaxTrainCells)};
    }
    if (!(std::isfinite(in.learningRate) && in.learningRate > 0 && in.learningRate <= 1e6))
        return Error{"the learning rate must be a number in (0, 1e6], got " +
                     number(in.learningRate)};
    return std::nullopt;
}

// The categorical from probabilities or logits, checked as every estimator tool checks it.
Result<EstimatorProblem> makeProblem(const EstimatorLabInput& in) {
    if (in.probs.empty() == in.logits.empty())
        return Error{
            "give the categorical as probabilities or as logits, not both and not neither"};
    std::vector<double> probs = in.probs, logits = in.logits;
    if (!logits.empty()) {
        if (logits.size() != in.rewards.size()) {
            return Error{"length mismatch: " + std::to_string(logits.size()) + " logits but " +
                         std::to_string(in.rewards.size()) + " rewards"};
        }
        for (size_t i = 0; i < logits.size(); ++i)
            if (!std::isfinite(logits[i]))
                return Error{"logit " + std::to_string(i + 1) + " is not finite"};
        const auto [lo, hi] = std::minmax_element(logits.begin(), logits.end());
        if (*hi - *lo > kEstimatorLabMaxLogitSpan) {
            return Error{"the logits span " + number(*hi - *lo) + ", more than " +
                         number(kEstimatorLabMaxLogitSpan) + " (a probability would round to 0)"};
        }
        double total = 0;
        for (double l : logits) total += std::exp(l - *hi);
        probs.clear();
        for (double l : logits) probs.push_back(std::exp(l - *hi) / total);
    }
    if (auto error = checkCategoricalProblem(probs, in.rewards)) return *error;
    if (logits.empty())
        for (double p : probs) logits.push_back(std::log(p));
    return EstimatorProblem(logits, in.rewards);
}

// Shared edges for one logit: the pooled tails of every estimator, widened to show the exact
// gradient and every mean.
std::vector<double> binEdges(const std::vector<torch::Tensor>& columns,
                             const std::vector<double>& tails, double exact,
                             const std::vector<double>& means, int bins) {
    double lo = exact, hi = exact;
    for (size_t e = 0; e < columns.size(); ++e) {
        const auto& c = columns[e];
        const auto n = c.size(0);
        const auto k = std::clamp<std::int64_t>(static_cast<std::int64_t>(tails[e] * n), 1, n);
        lo = std::min(lo, std::get<0>(c.kthvalue(k)).item<double>());
        hi = std::max(hi, std::get<0>(c.kthvalue(n + 1 - k)).item<double>());
    }
    for (double m : means) {
        lo = std::min(lo, m);
        hi = std::max(hi, m);
    }
    if (!(hi > lo)) {
        const double pad = std::max(0.5, std::abs(lo) * 0.1);
        lo -= pad;
        hi += pad;
    }
    std::vector<double> edges(static_cast<size_t>(bins) + 1);
    for (int b = 0; b <= bins; ++b) edges[b] = lo + (hi - lo) * b / bins;
    return edges;
}

EstimatorHistogram histogram(const torch::Tensor& column, const std::vector<double>& edges) {
    const auto x = column.to(torch::kFloat64);
    const double lo = edges.front(), hi = edges.back();
    const auto bins = static_cast<std::int64_t>(edges.size()) - 1;
    EstimatorHistogram h;
    const auto belowMask = x<lo, aboveMask = x> hi;
    h.below = belowMask.sum().item<std::int64_t>();
    h.above = aboveMask.sum().item<std::int64_t>();
    const auto inside = x.masked_select(~(belowMask | aboveMask));
    const auto index = ((inside - lo) / (hi - lo) * static_cast<double>(bins))
                           .floor()
                           .to(torch::kLong)
                           .clamp(0, bins - 1);
    const auto counts = torch::bincount(index, {}, bins);
    for (std::int64_t b = 0; b < bins; ++b) h.counts.push_back(counts[b].item<std::int64_t>());
    return h;
}

EstimatorSummary summarise(const std::string& name, const torch::Tensor& perSample,
                           const std::vector<double>& exact) {
    auto m = estimateMoments(perSample);
    const auto largest = perSample.abs().amax(/*dim=*/0);
    EstimatorSummary s;
    s.name = name;
    s.baseline = kNaN;
    s.closedFormTotal = kNaN;
    double squared = 0;
    for (size_t j = 0; j < exact.size(); ++j) {
        // An estimator can be exact (two categories with b*: every draw gives the same vector);
        // then spreads and biases of the order of double rounding are zero, not evidence.
        const double roundoff = kRoundoff * std::max(largest[j].item<double>(), std::abs(exact[j]));
        if (m.standardError[j] <= roundoff) {
            m.totalVariance -= m.variance[j];
            m.variance[j] = 0;
            m.standardError[j] = 0;
        }
        const double bias = m.mean[j] - exact[j];
        s.bias.push_back(bias);
        squared += bias * bias;
        const double se = m.standardError[j];
        const double z = std::abs(bias) <= roundoff ? 0.0 : se > 0 ? std::abs(bias) / se : INFINITY;
        s.maxAbsZ = std::max(s.maxAbsZ, z);
    }
    s.mean = m.mean;
    s.standardError = m.standardError;
    s.variance = m.variance;
    s.totalVariance = 0;
    for (double v : m.variance) s.totalVariance += v;
    s.biasNorm = std::sqrt(squared);
    return s;
}

void setClosedForm(EstimatorSummary& s, std::vector<double> perLogit) {
    s.closedFormTotal = 0;
    for (double v : perLogit) s.closedFormTotal += v;
    s.closedFormVariance = std::move(perLogit);
}

}  // namespace

std::vector<std::string> estimatorNames(const std::vector<double>& temperatures) {
    std::vector<std::string> names;
    for (const auto& spec : estimatorSpecs(temperatures)) names.push_back(spec.name());
    return names;
}

Result<EstimatorLabResult> runEstimatorLab(const EstimatorLabInput& in, const Progress& progress) {
    auto problem = makeProblem(in);
    if (!problem) return Error{problem.error()};
    const EstimatorProblem& pb = *problem;
    const auto L = static_cast<std::int64_t>(pb.probs().size());
    if (auto error = checkSizes(in, L)) return *error;

    torch::NoGradGuard noGrad;  // the estimators enable autograd only where they differentiate
    const auto specs = estimatorSpecs(in.temperatures);
    const auto names = estimatorNames(in.temperatures);
    // One unit per estimator, and one per training run (the exact gradient's too).
    const double workUnits =
        static_cast<double>(names.size() + (in.trainSteps > 0 ? names.size() + 1 : 0));
    double done = 0;
    auto advance = [&] { return !progress || progress(++done / workUnits); };
    const Error cancelled{"cancelled"};

    EstimatorLabResult r;
    r.probs = pb.probs();
    r.logits = pb.logitValues();
    r.rewards = in.rewards;
    r.exact = pb.exact();
    r.expectedReward = pb.expectedReward();
    r.optimalBaseline = pb.optimalBaseline();
    r.samples = in.samples;
    r.seed = in.seed;
    r.baselineDecay = in.baselineDecay;

    // Per-sample estimates, stored as float32 until the shared histogram edges are known.
    std::vector<torch::Tensor> stored;
    auto keep = [&](EstimatorSummary summary, const torch::Tensor& perSample) {
        r.estimators.push_back(std::move(summary));
        stored.push_back(perSample.to(torch::kFloat32));
    };
    {
        Rng rng(in.seed);
        const ScoreFunctionDraws draws(pb.logits(), pb.rewards(), in.samples, rng);
        const auto plainSamples = draws.gradients(pb.scalar(0.0));
        auto plain = summarise(names[0], plainSamples, r.exact);
        plain.baseline = 0;
        setClosedForm(plain, pb.constantBaselineVariance(0.0));
        keep(std::move(plain), plainSamples);
        if (!advance()) return cancelled;

        MovingAverageBaseline average(in.baselineDecay);
        const auto perSample = draws.gradients(movingAverageBaselines(draws.rewards(), average));
        auto moving = summarise(names[1], perSample, r.exact);
        setClosedForm(moving, pb.movingAverageVariance(in.baselineDecay, in.samples));
        keep(std::move(moving), perSample);
        if (!advance()) return cancelled;

        const auto optimalSamples = draws.gradients(pb.scalar(pb.optimalBaseline()));
        auto optimal = summarise(names[2], optimalSamples, r.exact);
        optimal.baseline = pb.optimalBaseline();
        setClosedForm(optimal, pb.constantBaselineVariance(pb.optimalBaseline()));
        keep(std::move(optimal), optimalSamples);
        if (!advance()) return cancelled;
    }
    for (size_t t = 0; t < in.temperatures.size(); ++t) {
        Rng rng(gumbelSeed(in.seed));  // the same noise at every temperature
        const auto perSample = straightThroughGumbelGradients(pb.logits(), pb.rewards(), in.samples,
                                                              in.temperatures[t], rng);
        auto gumbel = summarise(names[3 + t], perSample, r.exact);
        gumbel.temperature = in.temperatures[t];
        keep(std::move(gumbel), perSample);
        if (!advance()) return cancelled;
    }
    const double reference = r.estimators.front().totalVariance;
    for (auto& s : r.estimators)
        s.varianceRatio = s.totalVariance > 0 ? reference / s.totalVariance : INFINITY;

    for (std::int64_t j = 0; j < L; ++j) {
        std::vector<torch::Tensor> columns;
        std::vector<double> means, tails;
        for (size_t e = 0; e < stored.size(); ++e) {
            columns.push_back(stored[e].select(/*dim=*/1, j).contiguous());
            means.push_back(r.estimators[e].mean[j]);
            tails.push_back(specs[e].kind == EstimatorKind::GumbelST ? kGumbelTail
                                                                     : kScoreFunctionTail);
        }
        r.binEdges.push_back(binEdges(columns, tails, r.exact[j], means, in.bins));
        for (size_t e = 0; e < stored.size(); ++e)
            r.estimators[e].histograms.push_back(histogram(columns[e], r.binEdges.back()));
    }
    stored.clear();

    r.trainSteps = in.trainSteps;
    r.learningRate = in.learningRate;
    r.trainSamples = in.trainSamples;
    if (in.trainSteps > 0) {
        std::vector<EstimatorSpec> runs{{EstimatorKind::Exact}};
        for (const auto& spec : specs) runs.push_back(spec);
        const EstimatorTrainingSettings settings{in.trainSteps, in.learningRate, in.trainSamples,
                                                 in.seed, in.baselineDecay};
        for (const auto& spec : runs) {
            auto run = trainWithEstimator(pb, spec, settings, [&](double fraction) {
                return !progress || progress((done + fraction) / workUnits);
            });
            if (!run) return Error{run.error()};
            r.training.push_back(std::move(run).value());
            if (!advance()) return cancelled;
        }
    }
    return r;
}

}  // namespace saccade
