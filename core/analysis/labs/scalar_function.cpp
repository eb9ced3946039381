#include "analysis/labs/scalar_function.h"

#include <cmath>
#include <sstream>

#include "common/parse.h"

namespace saccade {

namespace {
const std::vector<std::string> kNames = {"identity", "square", "cube", "relu",
                                         "tanh",     "sigmoid", "exp"};
}

std::vector<std::string> ScalarFunction::names() { return kNames; }

Result<ScalarFunction> ScalarFunction::parse(const std::string& spec) {
    ScalarFunction f;
    const std::string kPoly = "poly:";
    if (spec.rfind(kPoly, 0) == 0) {
        auto coefficients = parseNumberList(spec.substr(kPoly.size()), "polynomial coefficients");
        if (!coefficients) return Error{coefficients.error()};
        f.m_name = "poly";
        f.m_coefficients = *coefficients;
        std::ostringstream canonical;
        canonical << kPoly;
        for (size_t i = 0; i < f.m_coefficients.size(); ++i)
            canonical << (i ? "," : "") << f.m_coefficients[i];
        f.m_spec = canonical.str();
        return f;
    }
    for (const auto& name : kNames) {
        if (spec == name) {
            f.m_name = name;
            f.m_spec = name;
            return f;
        }
    }
    std::string accepted;
    for (const auto& name : kNames) accepted += name + ", ";
    return Error{"unknown function '" + spec + "' (accepted: " + accepted + "poly:c0,c1,...)"};
}

double ScalarFunction::operator()(double x) const {
    if (m_name == "identity") return x;
    if (m_name == "square") return x * x;
    if (m_name == "cube") return x * x * x;
    if (m_name == "relu") return x > 0 ? x : 0.0;
    if (m_name == "tanh") return std::tanh(x);
    if (m_name == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (m_name == "exp") return std::exp(x);
    // Horner's rule, highest degree first.
    double y = 0.0;
    for (auto it = m_coefficients.rbegin(); it != m_coefficients.rend(); ++it) y = y * x + *it;
    return y;
}

}  // namespace saccade
