#pragma once
// The parts the 2-D embeddings share (analysis/atlas/embedding_2d.h): the PCA projection, exact
// nearest neighbours, and UMAP, which the dispatcher calls. Plain C++: no LibTorch.

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "analysis/atlas/embedding_2d.h"
#include "common/result.h"

namespace saccade::embedding {

/// The projection of `rows` points of `dim` numbers on their two directions of largest variance
/// (rows x 2, interleaved); deterministic, each direction's largest component positive.
std::vector<double> pcaProjection(const std::vector<float>& x, std::int64_t rows, std::int64_t dim);

/// Point i's `k` nearest other points as (squared distance, index), nearest first; exact.
std::vector<std::pair<double, std::int64_t>> nearest(const std::vector<float>& x, std::int64_t rows, std::int64_t dim,
                                                     std::int64_t i, std::int64_t k);

/// a and b of UMAP's low-dimensional similarity 1 / (1 + a d^(2b)), fitted by least squares to 1
/// up to `minDist` and exp(-(d - minDist) / spread) beyond, at 300 distances in [0, 3 spread].
std::pair<double, double> umapCurve(double minDist, double spread = 1.0);

/// UMAP (McInnes, Healy and Melville 2018); checked options (embedding_2d.cpp).
Result<std::vector<double>> umap(const std::vector<float>& x, std::int64_t rows, std::int64_t dim,
                                 const Embedding2dOptions& options, const std::function<bool(double)>& progress);

}  // namespace saccade::embedding
