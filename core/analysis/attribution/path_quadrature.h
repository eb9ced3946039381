#pragma once
// The points of a straight path from a baseline (alpha = 0) to the input (alpha = 1) and their
// weights, for integrated gradients over images (analysis/attribution_gradients.h) and over a
// sentence's embeddings (analysis/seq_attribution.h). Plain types.

#include <string>
#include <vector>

namespace saccade {

struct PathQuadrature {
    std::vector<double> alphas, weights;  ///< the weights sum to 1
};

/// "trapezoid": steps + 1 points k / steps, the ends' weights halved; "midpoint": steps points
/// (k + 1/2) / steps; "gauss-legendre": the steps-point Gauss-Legendre rule on [0, 1], exact for
/// polynomials of degree 2 steps - 1. Another name reads as midpoint; steps >= 1.
PathQuadrature pathQuadrature(int steps, const std::string& quadrature);

}  // namespace saccade
