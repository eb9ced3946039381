// UMAP (analysis/atlas/embedding_parts.h): the fuzzy graph over exact nearest neighbours, then
// stochastic gradient descent over its edges with negative sampling, in one thread.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "analysis/atlas/embedding_parts.h"

namespace saccade::embedding {
namespace {

struct Edge {
    std::int64_t head = 0, tail = 0;
    double weight = 0;
};

// Point i's membership strengths to its neighbours (distances `d`, nearest first): the distance
// to the nearest (non-zero) one subtracted, and sigma found by bisection so that they sum to log2 k.
std::vector<double> memberships(const std::vector<std::pair<double, std::int64_t>>& d, double meanDistance) {
    const double target = std::log2(double(d.size()));
    double rho = 0;
    for (const auto& [dist, j] : d)
        if (dist > 0) {
            rho = dist;
            break;
        }
    double lo = 0, hi = INFINITY, sigma = 1;
    std::vector<double> w(d.size());
    for (int it = 0; it < 64; ++it) {
        double sum = 0;
        for (std::size_t j = 0; j < d.size(); ++j) sum += std::exp(-std::max(0.0, d[j].first - rho) / sigma);
        if (std::abs(sum - target) < 1e-5) break;
        if (sum > target) {
            hi = sigma;
            sigma = (lo + hi) / 2;
        } else {
            lo = sigma;
            sigma = std::isinf(hi) ? sigma * 2 : (lo + hi) / 2;
        }
    }
    sigma = std::max(sigma, 1e-3 * meanDistance);  // as the reference: no point's scale below a thousandth of the mean
    for (std::size_t j = 0; j < d.size(); ++j) w[j] = std::exp(-std::max(0.0, d[j].first - rho) / sigma);
    return w;
}

// The fuzzy union of every point's neighbourhood, w_ij + w_ji - w_ij w_ji, as edges both ways.
std::vector<Edge> fuzzyGraph(const std::vector<float>& x, std::int64_t rows, std::int64_t dim, std::int64_t k,
                             const std::function<bool(double)>& progress, bool& cancelled) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, double>> both;  // (i < j): (w_ij, w_ji)
    for (std::int64_t i = 0; i < rows; ++i) {
        if (progress && i % 256 == 0 && !progress(0.3 * double(i) / double(rows))) {
            cancelled = true;
            return {};
        }
        auto d = nearest(x, rows, dim, i, k);
        double mean = 0;
        for (auto& e : d) mean += (e.first = std::sqrt(e.first)) / double(d.size());
        const auto w = memberships(d, mean);
        for (std::size_t j = 0; j < d.size(); ++j) {
            const auto other = d[j].second;
            auto& entry = both[{std::min(i, other), std::max(i, other)}];
            (i < other ? entry.first : entry.second) = w[j];
        }
    }
    std::vector<Edge> edges;
    for (const auto& [ij, w] : both) {
        const double weight = w.first + w.second - w.first * w.second;
        edges.push_back({ij.first, ij.second, weight});
        edges.push_back({ij.second, ij.first, weight});
    }
    return edges;
}

// The start: the PCA projection with its largest coordinate at 10, plus noise of 1e-4, then moved
// and scaled into [0, 10] on each axis.
std::vector<double> start(const std::vector<float>& x, std::int64_t rows, std::int64_t dim, std::mt19937_64& rng) {
    auto y = pcaProjection(x, rows, dim);
    double largest = 0;
    for (double v : y) largest = std::max(largest, std::abs(v));
    std::normal_distribution<double> noise(0.0, 1e-4);
    for (double& v : y) v = (largest > 0 ? v / largest * 10 : 0.0) + noise(rng);
    for (int axis = 0; axis < 2; ++axis) {
        double lo = INFINITY, hi = -INFINITY;
        for (std::size_t i = std::size_t(axis); i < y.size(); i += 2) lo = std::min(lo, y[i]), hi = std::max(hi, y[i]);
        for (std::size_t i = std::size_t(axis); i < y.size(); i += 2) y[i] = hi > lo ? 10 * (y[i] - lo) / (hi - lo) : 0.0;
    }
    return y;
}

double clip(double v) { return std::max(-4.0, std::min(4.0, v)); }

}  // namespace

std::pair<double, double> umapCurve(double minDist, double spread) {
    std::vector<double> xs, ys;
    for (int i = 0; i < 300; ++i) {
        const double x = 3 * spread * i / 299.0;
        xs.push_back(x);
        ys.push_back(x < minDist ? 1.0 : std::exp(-(x - minDist) / spread));
    }
    // Levenberg-Marquardt on (a, b) from (1, 1).
    double a = 1, b = 1, lambda = 1e-3;
    const auto cost = [&](double ca, double cb) {
        double c = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const double f = 1 / (1 + ca * std::pow(xs[i], 2 * cb)) - ys[i];
            c += f * f;
        }
        return c;
    };
    double current = cost(a, b);
    for (int it = 0; it < 200; ++it) {
        double jaa = 0, jab = 0, jbb = 0, ga = 0, gb = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (xs[i] <= 0) continue;  // f = 1 there whatever a and b
            const double u = std::pow(xs[i], 2 * b), f = 1 / (1 + a * u);
            const double da = -u * f * f, db = -a * u * 2 * std::log(xs[i]) * f * f, r = f - ys[i];
            jaa += da * da, jab += da * db, jbb += db * db, ga += da * r, gb += db * r;
        }
        const double A = jaa * (1 + lambda), B = jbb * (1 + lambda), det = A * B - jab * jab;
        if (!(std::abs(det) > 0)) break;
        const double stepA = -(B * ga - jab * gb) / det, stepB = -(A * gb - jab * ga) / det;
        const double tried = cost(a + stepA, b + stepB);
        if (tried < current) {
            a += stepA, b += stepB, current = tried, lambda /= 10;
            if (std::abs(stepA) + std::abs(stepB) < 1e-12) break;
        } else {
            lambda *= 10;
        }
    }
    return {a, b};
}

Result<std::vector<double>> umap(const std::vector<float>& x, std::int64_t rows, std::int64_t dim, const Embedding2dOptions& o,
                                 const std::function<bool(double)>& progress) {
    bool cancelled = false;
    auto edges = fuzzyGraph(x, rows, dim, std::min<std::int64_t>(o.neighbors, rows - 1), progress, cancelled);
    if (cancelled) return Error{"cancelled"};
    const int epochs = o.epochs > 0 ? o.epochs : rows <= 10000 ? 500 : 200;
    double heaviest = 0;
    for (const auto& e : edges) heaviest = std::max(heaviest, e.weight);
    edges.erase(std::remove_if(edges.begin(), edges.end(), [&](const Edge& e) { return e.weight < heaviest / epochs; }),
                edges.end());
    const auto [a, b] = umapCurve(o.minDist);
    std::mt19937_64 rng(o.seed);
    auto y = start(x, rows, dim, rng);
    const double negativeRate = 5;
    std::vector<double> every(edges.size()), next(edges.size()), everyNegative(edges.size()), nextNegative(edges.size());
    for (std::size_t e = 0; e < edges.size(); ++e) {
        every[e] = next[e] = heaviest / edges[e].weight;  // an edge of the heaviest weight every epoch
        everyNegative[e] = nextNegative[e] = every[e] / negativeRate;
    }
    for (int n = 0; n < epochs; ++n) {
        if (progress && n % 5 == 0 && !progress(0.3 + 0.7 * double(n) / double(epochs))) return Error{"cancelled"};
        const double rate = 1.0 - double(n) / double(epochs);
        for (std::size_t e = 0; e < edges.size(); ++e) {
            if (next[e] > n) continue;
            double* cur = &y[std::size_t(2 * edges[e].head)];
            double* other = &y[std::size_t(2 * edges[e].tail)];
            const double dx = cur[0] - other[0], dy = cur[1] - other[1], d2 = dx * dx + dy * dy;
            const double powered = d2 > 0 ? std::pow(d2, b) : 0.0;  // d^2b; d^2(b-1) is it over d^2
            const double pull = d2 > 0 ? -2 * a * b * (powered / d2) / (a * powered + 1) : 0.0;
            for (int c = 0; c < 2; ++c) {
                const double g = clip(pull * (c ? dy : dx)) * rate;
                cur[c] += g;
                other[c] -= g;
            }
            next[e] += every[e];
            const int negatives = int((n - nextNegative[e]) / everyNegative[e]);
            for (int s = 0; s < negatives; ++s) {
                const auto k = std::int64_t(rng() % std::uint64_t(rows));
                if (k == edges[e].head) continue;
                const double* far = &y[std::size_t(2 * k)];
                const double fx = cur[0] - far[0], fy = cur[1] - far[1], f2 = fx * fx + fy * fy;
                const double push = f2 > 0 ? 2 * b / ((0.001 + f2) * (a * std::pow(f2, b) + 1)) : 0.0;
                for (int c = 0; c < 2; ++c) cur[c] += (push > 0 ? clip(push * (c ? fy : fx)) : 4.0) * rate;
            }
            nextNegative[e] += negatives * everyNegative[e];
        }
    }
    if (progress) progress(1.0);
    return y;
}

}  // namespace saccade::embedding
