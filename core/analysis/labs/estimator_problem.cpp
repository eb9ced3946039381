#include "analysis/labs/estimator_problem.h"

#include <torch/torch.h>

#include <sstream>

#include "common/seed_mix.h"

namespace saccade {

namespace {

constexpr std::uint64_t kGumbelStream = 0x67756d62656cull;  // "gumbel"

// (delta_ij - p_j)^2: how much draw i moves logit j's score-function term.
double scoreSquare(const std::vector<double>& p, size_t i, size_t j) {
    const double d = (i == j ? 1.0 : 0.0) - p[j];
    return d * d;
}

}  // namespace

std::string EstimatorSpec::name() const {
    switch (kind) {
        case EstimatorKind::Exact:
            return "exact";
        case EstimatorKind::Reinforce:
            return "reinforce";
        case EstimatorKind::MovingAverage:
            return "reinforce-moving-average";
        case EstimatorKind::OptimalBaseline:
            return "reinforce-optimal-baseline";
        case EstimatorKind::GumbelST: {
            std::ostringstream s;
            s << "gumbel-st:" << temperature;
            return s.str();
        }
    }
    return "?";
}

std::vector<EstimatorSpec> estimatorSpecs(const std::vector<double>& temperatures) {
    std::vector<EstimatorSpec> specs{{EstimatorKind::Reinforce},
                                     {EstimatorKind::MovingAverage},
                                     {EstimatorKind::OptimalBaseline}};
    for (double t : temperatures) specs.push_back({EstimatorKind::GumbelST, t});
    return specs;
}

std::uint64_t gumbelSeed(std::uint64_t seed) { return mixSeed(seed, kGumbelStream, 0); }

EstimatorProblem::EstimatorProblem(const std::vector<double>& logits,
                                   const std::vector<double>& rewards)
    : m_logitValues(logits), m_rewardValues(rewards) {
    const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    m_logits = torch::tensor(logits, opts);
    m_rewards = torch::tensor(rewards, opts);
    const auto p = torch::softmax(m_logits, /*dim=*/0);
    for (std::int64_t i = 0; i < p.size(0); ++i) m_probs.push_back(p[i].item<double>());
    for (size_t i = 0; i < m_probs.size(); ++i) m_expected += m_probs[i] * rewards[i];
    for (size_t j = 0; j < m_probs.size(); ++j)
        m_exact.push_back(m_probs[j] * (rewards[j] - m_expected));
    m_optimal = optimalBaselineFor(p, m_rewards);
}

double optimalBaselineFor(const torch::Tensor& probs, const torch::Tensor& rewards) {
    // g_i = ||e_i - p||^2 = 1 - 2 p_i + sum_k p_k^2; the summed variance is quadratic in b with
    // its minimum at E[r g] / E[g].
    const auto g = 1.0 - 2.0 * probs + probs.pow(2).sum();
    const double weight = (probs * g).sum().item<double>();
    if (!(weight > 0)) return (probs * rewards).sum().item<double>();  // one category: any b
    return (probs * rewards * g).sum().item<double>() / weight;
}

std::vector<double> EstimatorProblem::constantBaselineVariance(double b) const {
    const auto& p = m_probs;
    std::vector<double> v(p.size(), 0.0);
    for (size_t j = 0; j < p.size(); ++j) {
        double second = 0;  // E[estimate_j^2]
        for (size_t i = 0; i < p.size(); ++i) {
            const double a = m_rewardValues[i] - b;
            second += p[i] * a * a * scoreSquare(p, i, j);
        }
        // E[x^2] - E[x]^2 cancels to rounding when the estimate is exact (two categories, b*).
        const double variance = second - m_exact[j] * m_exact[j];
        v[j] = variance > 1e-12 * second ? variance : 0.0;
    }
    return v;
}

std::vector<double> EstimatorProblem::movingAverageVariance(double decay, std::int64_t n) const {
    // Var_j(b) is quadratic in b with leading coefficient C_j = sum_i p_i (delta_ij - p_j)^2, so a
    // baseline of mean m and variance s gives E[Var_j(b)] = Var_j(m) + C_j s.
    double rewardVariance = 0;
    for (size_t i = 0; i < m_probs.size(); ++i) {
        const double d = m_rewardValues[i] - m_expected;
        rewardVariance += m_probs[i] * d * d;
    }
    double spread = 0;  // sum over draws 1..N-1 of s_n
    double s = 1;
    for (std::int64_t k = 1; k < n; ++k) {
        spread += s;
        s = decay * decay * s + (1 - decay) * (1 - decay);
    }
    const auto atZero = constantBaselineVariance(0.0);
    const auto atMean = constantBaselineVariance(m_expected);
    std::vector<double> v(m_probs.size());
    for (size_t j = 0; j < m_probs.size(); ++j) {
        double c = 0;
        for (size_t i = 0; i < m_probs.size(); ++i) c += m_probs[i] * scoreSquare(m_probs, i, j);
        v[j] = (atZero[j] + static_cast<double>(n - 1) * atMean[j] + c * rewardVariance * spread) /
               static_cast<double>(n);
    }
    return v;
}

torch::Tensor EstimatorProblem::scalar(double v) const {
    return torch::tensor(v, torch::TensorOptions().dtype(torch::kFloat64));
}

}  // namespace saccade
