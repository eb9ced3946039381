#pragma once
// The failure map of a boundary sweep as an image: one square per offset (dx, dy) coloured by a
// metric (inferno: dark = 0, bright = 1; grey where undefined), white lines where the object's
// left (top) edge lies on a grid line and dashed ones where its right (bottom) edge does, so the
// band between them is where it straddles a cell border; axis ticks, a title and a colour bar.

#include <string>

#include "analysis/runs/boundary_sweep.h"
#include "data/image.h"

namespace saccade {

/// RGB image; `cellPixels` per offset (0: automatic, about 360 px across).
Image renderSweepMap(const SweepResult& result, SweepMetric metric, int cellPixels = 0);

/// Whether the object's near edge (dx from the anchor) lies on a grid line of `cell` pixels.
inline bool edgeOnGridLine(int offset, int cell) { return cell > 0 && ((offset % cell) + cell) % cell == 0; }

}  // namespace saccade
