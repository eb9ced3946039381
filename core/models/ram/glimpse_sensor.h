#pragma once
// The glimpse sensor of the Recurrent Attention Model: k square patches centred on a location
// l in [-1, 1]^2, the first g x g pixels, each next one s times wider, each averaged down to
// g x g, zero outside the image. Vectorised over the batch: one summed-area table per image,
// then every output cell of every scale is four lookups, whatever the patch size (see
// PERF-NOTES.md). Engine header: includes LibTorch.

#include <torch/types.h>

#include <vector>

#include "common/box.h"

namespace saccade {

struct GlimpseGeometry {
    int imageWidth = 0, imageHeight = 0;
    int size = 8;    ///< g
    int scales = 1;  ///< k
    int factor = 2;  ///< s
    int channels = 1;
    /// Output features per glimpse: k * channels * g * g.
    int features() const { return scales * channels * size * size; }
};

/// The summed-area table of images [B, C, H, W] in [0, 1]: [B, C, H + 1, W + 1] int32 of 8-bit
/// levels (pixels are rounded to multiples of 1/255, which every Saccade input already is), zero
/// first row and column, entry (y, x) = sum of pixels [0, y) x [0, x). Exact.
torch::Tensor summedAreaTable(const torch::Tensor& images);

/// Glimpses at `locations` [N, 2] ((x, y) in [-1, 1]; finite values outside are clamped, NaN or
/// infinite ones and other shapes throw c10::Error saying so) from `sat`
/// ([N or 1, C, H + 1, W + 1]; a batch of 1 is shared by all N locations). Returns
/// [N, k * C * g * g]: scale-major, then channel, then row-major cells. The centre pixel is
/// floor((l + 1) / 2 * W); scale i spans pixels [c - g s^i / 2, c + g s^i / 2) per axis, each output
/// cell the mean of an s^i x s^i block (zeros outside the image count in the mean).
torch::Tensor extractGlimpses(const torch::Tensor& sat, const torch::Tensor& locations,
                              const GlimpseGeometry& geometry);

/// The centre pixels [N, 2] (x, y; int64, in [0, W] x [0, H]: l = 1 lands one past the last
/// pixel) of `locations` [N, 2], checked as extractGlimpses checks them. Two locations with the
/// same centre pixel give the same glimpse.
torch::Tensor glimpseCentres(const torch::Tensor& locations, const GlimpseGeometry& geometry);

/// extractGlimpses from centre pixels [N, 2] already computed by glimpseCentres.
torch::Tensor extractGlimpsesAt(const torch::Tensor& sat, const torch::Tensor& centres,
                                const GlimpseGeometry& geometry);

/// The pixel boxes of every scale of a glimpse at (x, y) in [-1, 1] (clamped), finest first.
std::vector<Box> glimpseBoxes(double x, double y, const GlimpseGeometry& geometry);

/// The centre pixel of a location, as the sensor uses it.
std::pair<int, int> locationToPixel(double x, double y, int width, int height);

}  // namespace saccade
