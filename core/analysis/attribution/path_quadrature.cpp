#include "analysis/attribution/path_quadrature.h"

#include <cmath>

namespace saccade {

namespace {

// The nodes in [0, 1] and weights of the n-point Gauss-Legendre rule (Newton on P_n, as in
// Numerical Recipes' gauleg).
PathQuadrature gaussLegendre(int n) {
    PathQuadrature q{std::vector<double>(static_cast<size_t>(n)), std::vector<double>(static_cast<size_t>(n))};
    for (int i = 0; i < (n + 1) / 2; ++i) {
        double z = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 0;
        for (int iteration = 0; iteration < 100; ++iteration) {
            double p0 = 1, p1 = 0;
            for (int j = 1; j <= n; ++j) {
                const double p2 = p1;
                p1 = p0;
                p0 = ((2.0 * j - 1) * z * p1 - (j - 1.0) * p2) / j;
            }
            dp = n * (z * p0 - p1) / (z * z - 1);
            const double step = p0 / dp;
            z -= step;
            if (std::abs(step) < 1e-15) break;
        }
        const double w = 1.0 / ((1 - z * z) * dp * dp);  // 2 / (...) on [-1, 1], halved on [0, 1]
        q.alphas[size_t(i)] = (1 - z) / 2;
        q.alphas[size_t(n - 1 - i)] = (1 + z) / 2;
        q.weights[size_t(i)] = q.weights[size_t(n - 1 - i)] = w;
    }
    return q;
}

}  // namespace

PathQuadrature pathQuadrature(int steps, const std::string& quadrature) {
    if (quadrature == "gauss-legendre") return gaussLegendre(steps);
    PathQuadrature q;
    if (quadrature == "trapezoid") {  // alpha = k / N, k = 0..N, end weights halved
        for (int k = 0; k <= steps; ++k) {
            q.alphas.push_back(double(k) / steps);
            q.weights.push_back((k == 0 || k == steps ? 0.5 : 1.0) / steps);
        }
        return q;
    }
    for (int k = 0; k < steps; ++k) {  // midpoint: alpha = (k + 1/2) / N
        q.alphas.push_back((k + 0.5) / steps);
        q.weights.push_back(1.0 / steps);
    }
    return q;
}

}  // namespace saccade
