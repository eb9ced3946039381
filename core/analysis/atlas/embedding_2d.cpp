#include "analysis/atlas/embedding_2d.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include "analysis/atlas/embedding_parts.h"

namespace saccade {
namespace embedding {

// The two directions of largest variance, by power iteration with deflation on the covariance
// (dim x dim), from a fixed start; each direction's sign makes its largest component positive.
std::vector<double> pcaProjection(const std::vector<float>& x, std::int64_t rows, std::int64_t dim) {
    const auto D = static_cast<std::size_t>(dim);
    std::vector<double> mean(D, 0.0), cov(D * D, 0.0);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t d = 0; d < dim; ++d) mean[std::size_t(d)] += x[std::size_t(i * dim + d)] / double(rows);
    std::vector<double> c(D);
    for (std::int64_t i = 0; i < rows; ++i) {
        for (std::int64_t d = 0; d < dim; ++d) c[std::size_t(d)] = x[std::size_t(i * dim + d)] - mean[std::size_t(d)];
        for (std::int64_t a = 0; a < dim; ++a)
            for (std::int64_t b = 0; b < dim; ++b) cov[std::size_t(a * dim + b)] += c[std::size_t(a)] * c[std::size_t(b)];
    }
    std::vector<std::vector<double>> directions;
    for (int k = 0; k < 2; ++k) {
        std::vector<double> v(D), w(D);
        for (std::int64_t d = 0; d < dim; ++d) v[std::size_t(d)] = 1.0 + 0.01 * double(d);
        for (int it = 0; it < 300; ++it) {
            for (std::int64_t a = 0; a < dim; ++a) {
                double s = 0;
                for (std::int64_t b = 0; b < dim; ++b) s += cov[std::size_t(a * dim + b)] * v[std::size_t(b)];
                w[std::size_t(a)] = s;
            }
            for (const auto& u : directions) {  // deflation: stay orthogonal to the directions found
                const double p = std::inner_product(w.begin(), w.end(), u.begin(), 0.0);
                for (std::int64_t d = 0; d < dim; ++d) w[std::size_t(d)] -= p * u[std::size_t(d)];
            }
            const double norm = std::sqrt(std::inner_product(w.begin(), w.end(), w.begin(), 0.0));
            if (norm < 1e-300) break;  // no variance left in this direction
            for (std::int64_t d = 0; d < dim; ++d) v[std::size_t(d)] = w[std::size_t(d)] / norm;
        }
        const auto largest = std::max_element(v.begin(), v.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
        if (*largest < 0) for (double& e : v) e = -e;
        directions.push_back(v);
    }
    std::vector<double> y(static_cast<std::size_t>(rows) * 2, 0.0);
    for (std::int64_t i = 0; i < rows; ++i)
        for (int k = 0; k < 2; ++k) {
            double s = 0;
            for (std::int64_t d = 0; d < dim; ++d)
                s += (x[std::size_t(i * dim + d)] - mean[std::size_t(d)]) * directions[std::size_t(k)][std::size_t(d)];
            y[std::size_t(i * 2 + k)] = s;
        }
    return y;
}

std::vector<std::pair<double, std::int64_t>> nearest(const std::vector<float>& x, std::int64_t rows, std::int64_t dim,
                                                     std::int64_t i, std::int64_t k) {
    std::vector<std::pair<double, std::int64_t>> d;
    d.reserve(std::size_t(rows - 1));
    const float* a = x.data() + i * dim;
    for (std::int64_t j = 0; j < rows; ++j) {
        if (j == i) continue;
        const float* b = x.data() + j * dim;
        double s = 0;
        for (std::int64_t e = 0; e < dim; ++e) s += double(a[e] - b[e]) * double(a[e] - b[e]);
        d.emplace_back(s, j);
    }
    std::nth_element(d.begin(), d.begin() + (k - 1), d.end());
    d.resize(std::size_t(k));
    std::sort(d.begin(), d.end());
    return d;
}

}  // namespace embedding

namespace {

using embedding::nearest;
using embedding::pcaProjection;
using Points = std::vector<double>;  // rows x 2, interleaved

// Sparse symmetric input affinities P (rows sum over all entries to 1): each point's Gaussian over
// its k nearest neighbours with the bandwidth that gives `perplexity`, then (P_j|i + P_i|j) / 2N.
struct Affinities {
    std::vector<std::int64_t> start;  // CSR: row i's entries are [start[i], start[i + 1])
    std::vector<std::int64_t> column;
    std::vector<double> value;
};

// The conditional probabilities of one point's neighbours (squared distances `d`), with the beta
// found by bisection so that their entropy is log(perplexity).
std::vector<double> conditional(const std::vector<std::pair<double, std::int64_t>>& d, double perplexity) {
    const double target = std::log(perplexity);
    double beta = 1, lo = 0, hi = INFINITY;
    std::vector<double> p(d.size());
    const double nearestD = d.front().first;
    for (int it = 0; it < 200; ++it) {
        double sum = 0, weighted = 0;
        for (std::size_t j = 0; j < d.size(); ++j) {
            p[j] = std::exp(-beta * (d[j].first - nearestD));  // shifted: the same ratios, no underflow
            sum += p[j];
            weighted += p[j] * (d[j].first - nearestD);
        }
        const double entropy = std::log(sum) + beta * weighted / sum;
        for (double& v : p) v /= sum;
        if (std::abs(entropy - target) < 1e-5) break;
        if (entropy > target) {
            lo = beta;
            beta = std::isinf(hi) ? beta * 2 : (beta + hi) / 2;
        } else {
            hi = beta;
            beta = (beta + lo) / 2;
        }
    }
    return p;
}

Affinities affinities(const std::vector<float>& x, std::int64_t rows, std::int64_t dim, double perplexity,
                      const std::function<bool(double)>& progress, bool& cancelled) {
    const std::int64_t k = std::min<std::int64_t>(rows - 1, std::int64_t(std::floor(3 * perplexity)) + 1);
    std::vector<std::vector<std::pair<std::int64_t, double>>> both(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i) {
        if (progress && i % 256 == 0 && !progress(0.1 * double(i) / double(rows))) {
            cancelled = true;
            return {};
        }
        const auto d = nearest(x, rows, dim, i, k);
        const auto p = conditional(d, perplexity);
        for (std::size_t j = 0; j < d.size(); ++j) {
            both[std::size_t(i)].emplace_back(d[j].second, p[j]);
            both[std::size_t(d[j].second)].emplace_back(i, p[j]);
        }
    }
    Affinities a;
    a.start.push_back(0);
    for (auto& row : both) {
        std::sort(row.begin(), row.end());
        for (std::size_t e = 0; e < row.size();) {  // P_j|i and P_i|j meet in one entry
            double v = 0;
            const auto j = row[e].first;
            for (; e < row.size() && row[e].first == j; ++e) v += row[e].second;
            a.column.push_back(j);
            a.value.push_back(v / (2.0 * double(rows)));
        }
        a.start.push_back(std::int64_t(a.column.size()));
    }
    return a;
}

// A quadtree over the embedding: per node its centre of mass, its count, its square's centre and
// half-width, and its four children (-1: none). A leaf holds one point, or several at one place.
class QuadTree {
public:
    explicit QuadTree(const Points& y) {
        const std::int64_t n = std::int64_t(y.size() / 2);
        double minX = INFINITY, minY = INFINITY, maxX = -INFINITY, maxY = -INFINITY;
        for (std::int64_t i = 0; i < n; ++i) {
            minX = std::min(minX, y[std::size_t(2 * i)]);
            maxX = std::max(maxX, y[std::size_t(2 * i)]);
            minY = std::min(minY, y[std::size_t(2 * i + 1)]);
            maxY = std::max(maxY, y[std::size_t(2 * i + 1)]);
        }
        const double half = std::max(maxX - minX, maxY - minY) / 2 * (1 + 1e-9) + 1e-12;
        m_nodes.reserve(std::size_t(4 * n));
        m_nodes.push_back(Node{(minX + maxX) / 2, (minY + maxY) / 2, half});
        for (std::int64_t i = 0; i < n; ++i) insert(0, i, y[std::size_t(2 * i)], y[std::size_t(2 * i + 1)], 0);
    }

    /// The repulsive force's sum on point (px, py) and its share of Z, sum_j q_ij (unnormalised).
    void repulsion(double px, double py, double theta, double& fx, double& fy, double& z) const {
        std::int64_t stack[256];
        int top = 0;
        stack[top++] = 0;
        while (top > 0) {
            const Node& node = m_nodes[std::size_t(stack[--top])];
            if (node.count == 0) continue;
            const double dx = px - node.comX / node.count, dy = py - node.comY / node.count;
            const double d2 = dx * dx + dy * dy;
            const bool leaf = node.child[0] < 0;
            if (leaf || 2 * node.half * 2 * node.half < theta * theta * d2) {
                // A leaf at the point itself holds it: its own term (q = 1, no force) is not counted.
                const double count = (leaf && d2 == 0) ? node.count - 1 : node.count;
                const double q = 1.0 / (1.0 + d2);
                z += count * q;
                fx += count * q * q * dx;
                fy += count * q * q * dy;
                continue;
            }
            for (const auto c : node.child)
                if (top < 252) stack[top++] = c;
        }
    }

private:
    struct Node {
        double cx = 0, cy = 0, half = 0;
        double comX = 0, comY = 0;
        std::int64_t count = 0;
        std::int64_t point = -1;
        double px = 0, py = 0;
        std::int64_t child[4] = {-1, -1, -1, -1};
    };

    void insert(std::int64_t at, std::int64_t i, double x, double y, int depth) {
        for (;;) {
            Node& node = m_nodes[std::size_t(at)];
            node.comX += x;
            node.comY += y;
            ++node.count;
            if (node.child[0] < 0) {
                if (node.count == 1) {
                    node.point = i, node.px = x, node.py = y;
                    return;
                }
                if ((node.px == x && node.py == y) || depth > 48) return;  // same place: one leaf holds both
                split(at);
                const Node& again = m_nodes[std::size_t(at)];
                const std::int64_t moved = childOf(again, again.px, again.py);
                Node& target = m_nodes[std::size_t(moved)];
                target.comX += again.px * double(again.count - 1), target.comY += again.py * double(again.count - 1);
                target.count = again.count - 1;
                target.point = again.point, target.px = again.px, target.py = again.py;
            }
            at = childOf(m_nodes[std::size_t(at)], x, y);
            ++depth;
        }
    }
    void split(std::int64_t at) {
        for (int c = 0; c < 4; ++c) {
            const Node& node = m_nodes[std::size_t(at)];
            const double h = node.half / 2;
            Node child{node.cx + ((c & 1) ? h : -h), node.cy + ((c & 2) ? h : -h), h};
            m_nodes.push_back(child);
            m_nodes[std::size_t(at)].child[c] = std::int64_t(m_nodes.size()) - 1;
        }
    }
    static std::int64_t childOf(const Node& node, double x, double y) {
        return node.child[(x >= node.cx ? 1 : 0) + (y >= node.cy ? 2 : 0)];
    }

    std::vector<Node> m_nodes;
};

// One gradient of the t-SNE cost (with exaggeration on P) into `grad`.
void gradient(const Points& y, const Affinities& p, double exaggeration, double theta, std::vector<double>& grad) {
    const std::int64_t n = std::int64_t(y.size() / 2);
    const QuadTree tree(y);
    std::vector<double> rep(static_cast<std::size_t>(2 * n));
    double z = 0;
    for (std::int64_t i = 0; i < n; ++i)
        tree.repulsion(y[std::size_t(2 * i)], y[std::size_t(2 * i + 1)], theta, rep[std::size_t(2 * i)],
                       rep[std::size_t(2 * i + 1)], z);
    for (std::int64_t i = 0; i < n; ++i) {
        double ax = 0, ay = 0;
        for (std::int64_t e = p.start[std::size_t(i)]; e < p.start[std::size_t(i + 1)]; ++e) {
            const auto j = p.column[std::size_t(e)];
            const double dx = y[std::size_t(2 * i)] - y[std::size_t(2 * j)], dy = y[std::size_t(2 * i + 1)] - y[std::size_t(2 * j + 1)];
            const double w = p.value[std::size_t(e)] / (1 + dx * dx + dy * dy);
            ax += w * dx;
            ay += w * dy;
        }
        grad[std::size_t(2 * i)] = 4 * (exaggeration * ax - rep[std::size_t(2 * i)] / z);
        grad[std::size_t(2 * i + 1)] = 4 * (exaggeration * ay - rep[std::size_t(2 * i + 1)] / z);
    }
}

Result<Points> tsne(const std::vector<float>& x, std::int64_t rows, std::int64_t dim, const Embedding2dOptions& o,
                    const std::function<bool(double)>& progress) {
    const double perplexity = std::min(o.perplexity, double(rows - 1) / 3.0);
    bool cancelled = false;
    const auto p = affinities(x, rows, dim, std::max(perplexity, 1.0), progress, cancelled);
    if (cancelled) return Error{"cancelled"};
    // The start: the PCA projection scaled to a standard deviation of 1e-4, plus seeded noise.
    Points y = pcaProjection(x, rows, dim);
    double sd = 0;
    for (double v : y) sd += v * v;
    sd = std::sqrt(sd / double(y.size()));
    std::mt19937_64 rng(o.seed);
    std::normal_distribution<double> noise(0.0, 1e-6);
    for (double& v : y) v = (sd > 0 ? v / sd * 1e-4 : 0.0) + noise(rng);
    const double exaggerationUntil = 250, early = 12;
    const double rate = std::max(double(rows) / early / 4, 50.0);
    std::vector<double> grad(y.size()), update(y.size(), 0.0), gains(y.size(), 1.0);
    for (int it = 0; it < o.iterations; ++it) {
        if (progress && it % 10 == 0 && !progress(0.1 + 0.9 * double(it) / double(o.iterations))) return Error{"cancelled"};
        const bool exaggerated = it < exaggerationUntil;
        gradient(y, p, exaggerated ? early : 1.0, o.theta, grad);
        const double momentum = exaggerated ? 0.5 : 0.8;
        double cx = 0, cy = 0;
        for (std::size_t e = 0; e < y.size(); ++e) {
            gains[e] = (grad[e] > 0) != (update[e] > 0) ? gains[e] + 0.2 : std::max(gains[e] * 0.8, 0.01);
            update[e] = momentum * update[e] - rate * gains[e] * grad[e];
            y[e] += update[e];
            (e % 2 ? cy : cx) += y[e];
        }
        for (std::size_t e = 0; e < y.size(); ++e) y[e] -= (e % 2 ? cy : cx) / double(rows);
    }
    if (progress) progress(1.0);
    return y;
}

}  // namespace

Result<std::vector<double>> embed2d(const std::vector<float>& points, std::int64_t dim, const Embedding2dOptions& o,
                                    const std::function<bool(double)>& progress) {
    if (o.method != "tsne" && o.method != "pca" && o.method != "umap")
        return Error{"unknown embedding '" + o.method + "' (use tsne, umap or pca)"};
    if (dim < 1 || points.size() % std::size_t(dim) != 0) return Error{"the points are not rows of " + std::to_string(dim) + " numbers"};
    const std::int64_t rows = std::int64_t(points.size()) / dim;
    if (rows < 3) return Error{"an embedding needs at least 3 points, got " + std::to_string(rows)};
    if (!std::all_of(points.begin(), points.end(), [](float v) { return std::isfinite(v); }))
        return Error{"the points hold a number that is not finite"};
    if (o.method == "pca") return pcaProjection(points, rows, dim);
    if (o.method == "umap") {
        if (o.neighbors < 2) return Error{"--neighbors must be at least 2"};
        if (!(o.minDist >= 0) || !(o.minDist <= 1)) return Error{"--min-dist must be 0-1"};
        if (o.epochs < 0) return Error{"--epochs must be at least 1 (or 0: the default)"};
        return embedding::umap(points, rows, dim, o, progress);
    }
    if (!(o.perplexity > 0)) return Error{"--perplexity must be above 0"};
    if (o.iterations < 250) return Error{"--iterations must be at least 250 (the first 250 exaggerate)"};
    if (!(o.theta >= 0)) return Error{"theta must be at least 0"};
    return tsne(points, rows, dim, o, progress);
}

}  // namespace saccade
