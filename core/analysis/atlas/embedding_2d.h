#pragma once
// Two-dimensional embeddings of points (rows of a matrix) for the atlas (analysis/atlas.h):
// - pca:  the projection on the two directions of largest variance (deterministic);
// - tsne: t-SNE (van der Maaten and Hinton 2008) with the Barnes-Hut approximation of the
//   repulsive forces (van der Maaten 2014): input affinities from each point's 3 x perplexity
//   nearest neighbours (exact neighbours), a quadtree over the embedding at every iteration,
//   early exaggeration 12 for the first 250 iterations, momentum 0.5 then 0.8, per-coordinate
//   gains; started from the PCA projection scaled to a standard deviation of 1e-4, plus
//   seeded noise of 1e-6 so that equal points separate. The same seed gives the same result.
// Plain C++: no LibTorch. Not thread-safe per call; calls on different threads are independent.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

struct Embedding2dOptions {
    std::string method = "tsne";  ///< "tsne" or "pca"
    double perplexity = 30;       ///< tsne: effective neighbours (> 0); lowered to (N - 1) / 3 for few points
    int iterations = 1000;        ///< tsne: gradient steps (>= 250)
    double theta = 0.5;           ///< tsne: Barnes-Hut accuracy (0: exact repulsion)
    std::uint64_t seed = 1;       ///< tsne: the start's noise
};

/// `points` rows of `dim` numbers each (row-major, rows = points.size() / dim) -> rows x 2 numbers
/// (x, y interleaved). `progress` (may be empty) gets the fraction done and returns false to stop:
/// then an Error "cancelled". Errors, one line each: an unknown method, fewer than 3 points, a
/// size that is not rows x dim, a perplexity <= 0, iterations < 250, a non-finite number.
Result<std::vector<double>> embed2d(const std::vector<float>& points, std::int64_t dim, const Embedding2dOptions& options,
                                    const std::function<bool(double)>& progress = {});

}  // namespace saccade
