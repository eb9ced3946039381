#pragma once
// Where a trace step attended, as boxes and masses in image pixels, for faithfulness measures
// and boundary sweeps. A grid cell (r, c) of a rows x cols grid over a W x H image spans columns
// W*c/cols .. W*(c+1)/cols (integer division), as the renderer draws it; attention is taken as
// uniform inside a cell. A RAM step's region is its finest glimpse; its attention is the
// Gaussian policy's density.

#include <vector>

#include "common/box.h"
#include "trace/trace.h"

namespace saccade {

/// The pixel box of cell `index` (row-major) of a rows x cols grid over a width x height image.
Box cellBox(int rows, int cols, int width, int height, int index);

/// Fraction of `object`'s area inside `region` (0 for an empty object).
double coverage(const Box& object, const Box& region);

/// Attention mass inside `box`: sum over cells of p * (area of the cell inside the box) / (cell area).
double gridMassInBox(const GridDistribution& grid, int width, int height, const Box& box);

/// Probability mass of an axis-aligned Gaussian inside `box` (both in pixels).
double gaussianMassInBox(const GaussianPolicy& policy, const Box& box);

/// The step's attention mass inside `box`: its grid distribution, else its Gaussian policy;
/// -1 when the step has neither.
double stepMassInBox(const TraceStep& step, int width, int height, const Box& box);

/// The regions the step chose: the chosen cells' boxes, or the finest glimpse box.
std::vector<Box> chosenRegions(const TraceStep& step, int width, int height);

/// The pointing game: the most attended cell overlaps `box` (grid), or the Gaussian's mean lies
/// inside it (RAM). Ties between cells go to the lowest index.
bool pointsAt(const TraceStep& step, int width, int height, const Box& box);

/// The step's attention spread over a rows x cols grid of cells (each cell's mass), summing to
/// about 1: the grid itself when it matches, else the Gaussian's mass per cell, renormalised.
std::vector<double> attentionOnGrid(const TraceStep& step, int width, int height, int rows, int cols);

}  // namespace saccade
