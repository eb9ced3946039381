#pragma once
// Translated and cluttered canvases after Mnih et al. 2014: a 28x28 source object placed at a
// random position on a larger canvas, with optional distractors (random crops of other source
// images of the same split) at random positions.

#include <cstdint>

#include "data/sample.h"

namespace saccade {

struct CanvasOptions {
    int size = 60;             ///< canvas side in pixels (>= the source's side)
    int distractors = 0;       ///< Mnih et al.: 4 on 60x60, 8 on 100x100
    int distractorSize = 8;    ///< side of each distractor crop
    std::uint64_t seed = 1;
};

/// Sample `index` of `split`: the source image index % size(split), placed at a position drawn
/// from the sample's own stream. The box is the object's ink (pixels > 0) in canvas pixels;
/// distractor boxes are the crops' squares. Pixels combine by maximum. Pure function of its
/// inputs; thread-safe.
Sample composeCanvas(const ObjectSource& source, Split split, std::int64_t index,
                     const CanvasOptions& options);

/// The tight box of pixels > 0 inside the w x h window of `image` at (x0, y0), in that window's
/// coordinates offset by (ox, oy); the whole window when it holds no ink.
Box inkBox(const Image& image, int x0, int y0, int w, int h, double ox, double oy);

/// Copies `src` (grey) into `dst` (grey) at (x, y) with max-combining, clipped to dst.
void pasteMax(Image& dst, const Image& src, int x, int y);

}  // namespace saccade
