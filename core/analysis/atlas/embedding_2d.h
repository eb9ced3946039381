#pragma once
// Two-dimensional embeddings of points (rows of a matrix) for the atlas (analysis/atlas.h):
// - pca:  the projection on the two directions of largest variance (deterministic);
// - tsne: t-SNE (van der Maaten and Hinton 2008) with the Barnes-Hut approximation of the
//   repulsive forces (van der Maaten 2014): input affinities from each point's 3 x perplexity
//   nearest neighbours (exact neighbours), a quadtree over the embedding at every iteration,
//   early exaggeration 12 for the first 250 iterations, momentum 0.5 then 0.8, per-coordinate
//   gains; started from the PCA projection scaled to a standard deviation of 1e-4, plus
//   seeded noise of 1e-6 so that equal points separate. The same seed gives the same result.
// - umap: UMAP (McInnes, Healy and Melville 2018): each point's fuzzy neighbourhood over its exact
//   k nearest neighbours (distance to the nearest subtracted, bandwidth by bisection to log2 k),
//   joined by the fuzzy union; the low-dimensional similarity 1 / (1 + a d^2b) with a and b fitted
//   to min-dist; stochastic gradient descent over the edges, each sampled in proportion to its
//   weight, 5 negative samples per edge sample, gradients clipped at 4, the learning rate falling
//   linearly from 1 to 0; started from the PCA projection scaled to [0, 10] plus seeded noise of
//   1e-4 (the reference's spectral start is not used). One thread, in a fixed order: the same seed
//   gives the same result.
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
    std::uint64_t seed = 1;       ///< tsne and umap: the start's noise (umap: its samples too)
    int neighbors = 15;           ///< umap: neighbours per point (>= 2); lowered to N - 1 for few points
    double minDist = 0.1;         ///< umap: how close points may pack, 0-1
    int epochs = 0;               ///< umap: passes over the edges; 0: 500 up to 10,000 points, else 200
};

/// `points` rows of `dim` numbers each (row-major, rows = points.size() / dim) -> rows x 2 numbers
/// (x, y interleaved). `progress` (may be empty) gets the fraction done and returns false to stop:
/// then an Error "cancelled". Errors, one line each: an unknown method, fewer than 3 points, a
/// size that is not rows x dim, a perplexity <= 0, iterations < 250, neighbors < 2, a min-dist
/// outside 0-1, epochs < 0, a non-finite number.
Result<std::vector<double>> embed2d(const std::vector<float>& points, std::int64_t dim, const Embedding2dOptions& options,
                                    const std::function<bool(double)>& progress = {});

}  // namespace saccade
