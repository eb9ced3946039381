#pragma once
// The scalar lab: the worked example of hard attention, exact and Monte-Carlo.
// Values v_i with selection probabilities p_i; soft attention returns sum p_i v_i, a hard draw
// returns one v_i; a nonlinear f downstream makes E[f(hard)] differ from f(soft).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/labs/scalar_function.h"
#include "common/result.h"

namespace saccade {

struct ScalarLabInput {
    std::vector<double> values;
    std::vector<double> probs;
    std::string function = "square";
    std::optional<double> u;  ///< the uniform draw in [0,1); drawn from `seed` when absent
    std::uint64_t seed = 1;
    std::int64_t samples = 0;  ///< Monte-Carlo draws of f(hard); 0 for none
};

/// One possible hard outcome: value v_i selected with probability p_i.
struct ScalarOutcome {
    double value = 0;
    double prob = 0;
    double f = 0;             ///< f(value)
    std::int64_t mcCount = 0;  ///< how often the Monte-Carlo draws selected it
};

struct ScalarLabResult {
    std::string function;  ///< canonical spelling of f
    double softContext = 0;
    double expectedHardContext = 0;  ///< exact: sum p_i v_i (equal to the soft context)
    double fSoft = 0;
    double expectedFHard = 0;  ///< exact: sum p_i f(v_i)
    double stdFHard = 0;       ///< exact standard deviation of f(hard)
    int argmaxIndex = 0;       ///< first index of the highest probability
    double argmaxValue = 0;
    double fArgmax = 0;
    struct Draw {
        double u = 0;
        int index = 0;
        double value = 0;
        double f = 0;
    } draw;
    struct MonteCarlo {
        double meanFHard = 0;
        double stderrFHard = 0;  ///< sample standard deviation / sqrt(n)
        double meanHardContext = 0;
        std::int64_t n = 0;
    };
    std::optional<MonteCarlo> mc;
    std::vector<ScalarOutcome> outcomes;
};

/// Largest Monte-Carlo sample count accepted.
constexpr std::int64_t kScalarLabMaxSamples = 100'000'000;

/// Checks the input: equal lengths, at least one value, probabilities >= 0 summing to 1 within
/// 1e-6, u in [0,1), a known function, 0 <= samples <= kScalarLabMaxSamples. Each error is one
/// line naming the problem.
Result<ScalarLabResult> runScalarLab(const ScalarLabInput& input);

/// The index a uniform u in [0,1) selects: the i whose cumulative interval [c_(i-1), c_i) holds u.
/// `probs` must already be valid.
int selectByUniform(const std::vector<double>& probs, double u);

/// The result as one JSON object (keys soft_context, expected_hard_context, f_soft,
/// expected_f_hard, argmax_value, f_argmax, draw{u,index,value}, mc{mean_f_hard,stderr,n}, ...).
std::string scalarLabToJson(const ScalarLabResult& result, int indent = 2);

}  // namespace saccade
