#pragma once
// The downstream nonlinearity f of the scalar lab: identity, square, cube, relu, tanh, sigmoid,
// exp, or a polynomial "poly:c0,c1,c2,...".

#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

/// A parsed, callable f. Value type; cheap to copy; thread-safe to call.
class ScalarFunction {
public:
    /// Parses a name ("square") or "poly:c0,c1,...". Unknown names are an Error naming the
    /// accepted ones.
    static Result<ScalarFunction> parse(const std::string& spec);
    /// The names accepted by parse(), without the polynomial form.
    static std::vector<std::string> names();

    double operator()(double x) const;
    /// The canonical spelling, e.g. "square" or "poly:1,0,2".
    const std::string& spec() const { return m_spec; }

private:
    std::string m_spec;
    std::string m_name;
    std::vector<double> m_coefficients;  // poly only, lowest degree first
};

}  // namespace saccade
