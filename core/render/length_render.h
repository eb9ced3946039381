#pragma once
// The length view's figure, the same in the GUI, `saccade-cli length view` and exports: three
// panels side by side. (1) The sparsity pattern: which keys (x) each query (y) attends to, dark
// where a cell's (query, key) pairs are all attended. (2) The relative output error of every query
// row against exact attention, with its mean. (3) Cost against length on log-log axes: forward
// time (top) and peak memory (bottom) of the variant (solid) and of full attention (dashed), each
// with its measured slope. Plain types.

#include <string>

#include "analysis/length/length_view.h"
#include "common/result.h"
#include "data/image.h"
#include "render/figure_canvas.h"

namespace saccade {

/// The figure at width x height pixels (at least 720 x 300; smaller sizes are raised to it).
FigureCanvas lengthViewFigure(const LengthView& view, int width = 1200, int height = 420);
/// The export format of `path` by its extension: "png", "svg", "csv" or "json"; an Error names
/// the accepted ones.
Result<std::string> lengthViewFormat(const std::string& path);
/// The bytes of the view in `format` (the figure at width x height for png and svg).
std::string lengthViewBytes(const LengthView& view, const std::string& format, int width = 1200, int height = 420);

/// The one-line title the figure and its exports carry.
std::string lengthViewTitle(const LengthView& view);

}  // namespace saccade
