#include "analysis/labs/scalar_lab.h"

#include <cmath>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/seed_mix.h"

namespace saccade {

namespace {

constexpr double kProbTolerance = 1e-6;
constexpr double kScalarLabMaxMagnitude = 1e9;

// f can overflow even on bounded values (exp 1000): a figure that is not finite is refused.
std::optional<Error> checkFinite(const ScalarLabResult& r) {
    std::vector<double> figures{r.softContext, r.fSoft, r.expectedFHard, r.stdFHard, r.fArgmax, r.draw.f};
    for (const auto& o : r.outcomes) figures.push_back(o.f);
    if (r.mc) figures.insert(figures.end(), {r.mc->meanFHard, r.mc->stderrFHard, r.mc->meanHardContext});
    for (double v : figures)
        if (!std::isfinite(v)) return Error{r.function + " overflows double precision on these values"};
    return std::nullopt;
}

std::optional<Error> validate(const ScalarLabInput& in) {
    if (in.values.empty()) return Error{"no values given"};
    if (in.values.size() != in.probs.size()) {
        return Error{"length mismatch: " + std::to_string(in.values.size()) + " values but " +
                     std::to_string(in.probs.size()) + " probabilities"};
    }
    double sum = 0;
    for (size_t i = 0; i < in.probs.size(); ++i) {
        if (!std::isfinite(in.probs[i]) || !std::isfinite(in.values[i]))
            return Error{"value or probability " + std::to_string(i + 1) + " is not finite"};
        if (std::abs(in.values[i]) > kScalarLabMaxMagnitude) {
            std::ostringstream msg;
            msg << "value " << i + 1 << " (" << in.values[i] << ") is outside -1e9..1e9: its square and "
                << "variance would lose all precision";
            return Error{msg.str()};
        }
        if (in.probs[i] < 0) {
            std::ostringstream msg;
            msg << "probability " << i + 1 << " is negative (" << in.probs[i] << ")";
            return Error{msg.str()};
        }
        sum += in.probs[i];
    }
    if (std::abs(sum - 1.0) > kProbTolerance) {
        std::ostringstream msg;
        msg.precision(10);
        msg << "probabilities sum to " << sum << ", not 1 (tolerance 1e-6)";
        return Error{msg.str()};
    }
    if (in.u && !(*in.u >= 0.0 && *in.u < 1.0)) {
        std::ostringstream msg;
        msg << "u = " << *in.u << " is outside [0, 1)";
        return Error{msg.str()};
    }
    if (in.samples < 0 || in.samples > kScalarLabMaxSamples) {
        return Error{"samples must be between 0 and " + std::to_string(kScalarLabMaxSamples) +
                     " (got " + std::to_string(in.samples) + ")"};
    }
    return std::nullopt;
}

}  // namespace

int selectByUniform(const std::vector<double>& probs, double u) {
    double cumulative = 0;
    int lastPositive = 0;
    for (size_t i = 0; i < probs.size(); ++i) {
        if (probs[i] <= 0) continue;
        lastPositive = static_cast<int>(i);
        cumulative += probs[i];
        if (u < cumulative) return lastPositive;
    }
    return lastPositive;  // u beyond a cumulative sum that rounding left just under 1
}

Result<ScalarLabResult> runScalarLab(const ScalarLabInput& in) {
    if (auto error = validate(in)) return *error;
    auto f = ScalarFunction::parse(in.function);
    if (!f) return Error{f.error()};

    ScalarLabResult r;
    r.function = f->spec();
    double second = 0;
    for (size_t i = 0; i < in.values.size(); ++i) {
        const double fv = (*f)(in.values[i]);
        r.outcomes.push_back({in.values[i], in.probs[i], fv, 0});
        r.softContext += in.probs[i] * in.values[i];
        r.expectedFHard += in.probs[i] * fv;
        second += in.probs[i] * fv * fv;
        if (in.probs[i] > in.probs[r.argmaxIndex]) r.argmaxIndex = static_cast<int>(i);
    }
    r.expectedHardContext = r.softContext;
    r.fSoft = (*f)(r.softContext);
    r.stdFHard = std::sqrt(std::max(0.0, second - r.expectedFHard * r.expectedFHard));
    r.argmaxValue = in.values[r.argmaxIndex];
    r.fArgmax = (*f)(r.argmaxValue);

    std::mt19937_64 drawRng(in.seed);
    r.draw.u = in.u ? *in.u : uniform01(drawRng);
    r.draw.index = selectByUniform(in.probs, r.draw.u);
    r.draw.value = in.values[r.draw.index];
    r.draw.f = (*f)(r.draw.value);

    if (in.samples > 0) {
        // Welford's running mean and variance: stable for any sample count.
        std::mt19937_64 rng(in.seed);
        double mean = 0, m2 = 0, contextSum = 0;
        for (std::int64_t k = 1; k <= in.samples; ++k) {
            const int i = selectByUniform(in.probs, uniform01(rng));
            ++r.outcomes[i].mcCount;
            const double fv = r.outcomes[i].f;
            const double delta = fv - mean;
            mean += delta / static_cast<double>(k);
            m2 += delta * (fv - mean);
            contextSum += in.values[i];
        }
        ScalarLabResult::MonteCarlo mc;
        mc.n = in.samples;
        mc.meanFHard = mean;
        const double variance = in.samples > 1 ? m2 / static_cast<double>(in.samples - 1) : 0.0;
        mc.stderrFHard = std::sqrt(variance / static_cast<double>(in.samples));
        mc.meanHardContext = contextSum / static_cast<double>(in.samples);
        r.mc = mc;
    }
    if (auto overflow = checkFinite(r)) return *overflow;
    return r;
}

std::string scalarLabToJson(const ScalarLabResult& r, int indent) {
    nlohmann::json j;
    j["function"] = r.function;
    j["soft_context"] = r.softContext;
    j["expected_hard_context"] = r.expectedHardContext;
    j["f_soft"] = r.fSoft;
    j["expected_f_hard"] = r.expectedFHard;
    j["std_f_hard"] = r.stdFHard;
    j["gap_expected_f_hard_minus_f_soft"] = r.expectedFHard - r.fSoft;
    j["argmax_index"] = r.argmaxIndex;
    j["argmax_value"] = r.argmaxValue;
    j["f_argmax"] = r.fArgmax;
    j["draw"] = {{"u", r.draw.u}, {"index", r.draw.index}, {"value", r.draw.value},
                 {"f", r.draw.f}};
    nlohmann::json outcomes = nlohmann::json::array();
    for (const auto& o : r.outcomes) {
        nlohmann::json item = {{"value", o.value}, {"prob", o.prob}, {"f", o.f}};
        if (r.mc) item["mc_count"] = o.mcCount;
        outcomes.push_back(item);
    }
    j["outcomes"] = outcomes;
    if (r.mc) {
        j["mc"] = {{"mean_f_hard", r.mc->meanFHard},
                   {"stderr", r.mc->stderrFHard},
                   {"mean_hard_context", r.mc->meanHardContext},
                   {"n", r.mc->n}};
    }
    return j.dump(indent);
}

}  // namespace saccade
