#pragma once
// The ground truth a trace carries for a dataset sample: a scene's object boxes and names with
// every valid caption as a reference (captioners), or the target's class and box (classifiers).
// Plain types.

#include "data/image_fit.h"
#include "data/sample.h"
#include "trace/trace.h"

namespace saccade {

/// The ground truth of a scene sample for captioner traces: object boxes and names, and every
/// valid caption (its references, or its one caption when it has none) as a reference.
GroundTruth sceneGroundTruth(const Sample& sample);
/// The ground truth of any dataset sample: a scene's (above), or the target's class and box.
GroundTruth sampleGroundTruth(const Sample& sample);
/// The ground truth of an image that `geometry` resized and cropped: boxes in the output's pixels,
/// cut to it; a box cropped away entirely is dropped with its name.
GroundTruth fittedGroundTruth(const GroundTruth& truth, const FitGeometry& geometry);

}  // namespace saccade
