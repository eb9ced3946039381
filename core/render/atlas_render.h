#pragma once
// The atlas (analysis/atlas.h) as a figure: every query and key of the head as a small square at
// its place in the 2-D embedding; queries in blues and keys in reds, each from dark (the first
// position) to light (the last), so that a positional head shows as bands of light and dark and a
// content head as clusters that mix them. A title names the model, layer, head and embedding.
// PNG or SVG through FigureCanvas.

#include "analysis/atlas/atlas.h"
#include "render/figure_canvas.h"

namespace saccade {

/// The figure at `width` x `height` pixels (at least 300 x 300).
FigureCanvas renderAtlas(const Atlas& atlas, int width = 900, int height = 900);

/// The colour of a point: queries dark blue to cyan, keys dark red to yellow, by position / last.
Rgb atlasColour(bool query, double position01);

}  // namespace saccade
