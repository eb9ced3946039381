#pragma once
// Boundary probes: a small object placed at exact offsets (dx, dy) from a line of a patch or
// glimpse grid, swept over a range, on a clean or cluttered canvas. This is how boundary-case
// failures are found: an object that straddles a cell border may be missed by every glimpse.

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/sample.h"

namespace saccade {

enum class ProbeObject { Blob, Item };

/// "blob" or "item" (an item of the object source, resized).
Result<ProbeObject> parseProbeObject(const std::string& name);

struct ProbeOptions {
    int canvas = 60;
    int cellSize = 12;               ///< grid lines at origin + k * cellSize on both axes
    int originX = 0, originY = 0;
    int objectSize = 6;              ///< the object's side in pixels
    ProbeObject object = ProbeObject::Blob;
    std::int64_t itemIndex = 0;      ///< Item: which test-split image of the source
    int dxMin = -6, dxMax = 6;       ///< offsets of the object's top-left from the anchor line
    int dyMin = 0, dyMax = 0;
    int distractors = 0;             ///< clutter pieces (8x8 crops of the source's test images)
    std::uint64_t seed = 1;          ///< the clutter; identical for every offset of a sweep
};

struct ProbeSample {
    int dx = 0, dy = 0;
    Sample sample;  ///< box = the object's exact square; label = the item's class (or -1)
};

/// The anchor: the grid line nearest the canvas centre, on each axis.
int probeAnchor(int canvas, int cellSize, int origin);

/// Every (dx, dy) of the ranges, dy-major. `source` gives items and clutter; it may be null for
/// clean blob probes. Errors: sizes that do not fit the canvas for some offset (naming it), an
/// empty range, an item or clutter asked for without a source.
Result<std::vector<ProbeSample>> makeProbes(const ProbeOptions& options, const ObjectSource* source);

}  // namespace saccade
