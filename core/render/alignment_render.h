#pragma once
// A sequence model's alignment matrix drawn for export: rows are the decoder's steps (the output
// tokens, "</s>" last), columns the source tokens, each cell coloured by its attention weight
// (inferno, 0 black to 1 yellow). The task's gold alignment is outlined (solid: sure, dashed:
// possible), the token a hard rule read is a white dot, local-p's predicted centre a green tick,
// and output tokens are green where they match the task's answer and red where they do not. One
// step can be highlighted, with its distribution over the source as bars under the matrix (the
// frames of the playback GIF). PNG through core's Image; SVG as text. Plain types.

#include <string>
#include <vector>

#include "data/image.h"
#include "models/seq/seq_model.h"

namespace saccade {

struct AlignmentRenderOptions {
    int cell = 22;          ///< pixels per cell, 8..96
    int highlight = -1;     ///< a step to outline, with its bars below; -1: none (no bar area)
    std::string caption;    ///< a line under the matrix; empty: none
};

Image renderAlignment(const SeqTranslation& translation, const AlignmentRenderOptions& options = {});
/// One frame per step, that step highlighted.
std::vector<Image> renderAlignmentFrames(const SeqTranslation& translation, const AlignmentRenderOptions& options = {});
std::string alignmentSvg(const SeqTranslation& translation, const AlignmentRenderOptions& options = {});

/// The head view (as in bertviz): the rows' tokens on the left, the columns' tokens on the right,
/// a line from each row token to each column token whose colour runs from white to blue with its
/// weight (heavier lines on top). With a highlighted step, only that row's lines are drawn.
Image renderHeadView(const SeqTranslation& translation, const AlignmentRenderOptions& options = {});

/// The step (row) drawn at pixel (x, y) of renderAlignment's image, or -1 outside the matrix.
int alignmentRowAt(const SeqTranslation& translation, const AlignmentRenderOptions& options, int x, int y);

/// The default caption: input, output, rule and whether the output is right.
std::string alignmentCaption(const SeqTranslation& translation);

}  // namespace saccade
