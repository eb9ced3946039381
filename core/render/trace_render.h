#pragma once
// Trace rendering: one step of a trace drawn over its image (attention heatmap, chosen cells,
// Gaussian policy, glimpse boxes, path, ground truth, title and legend), a strip of all steps
// with the output probabilities, and equal-size frames for animation. OpenCV stays in the .cpp.

#include <array>
#include <cstddef>  // data/image.h uses size_t without including it
#include <cstdint>
#include <string>
#include <vector>

#include "data/image.h"
#include "trace/trace.h"

namespace saccade {

struct RenderOptions {
    int scale = 0;        ///< integer upscale (nearest); 0: automatic, so the image is about 240 px
    bool heatmap = true;  ///< the step's distribution as an inferno heatmap + legend
    double heatmapOpacity = 0.55;  ///< 0 (image only) .. 1 (heatmap only)
    bool chosen = true;            ///< outline the chosen cells / mark the chosen point
    bool path = true;              ///< polyline through the earlier steps' choices
    bool groundTruth = true;       ///< dashed green ground-truth boxes, when known
    bool stepNumbers = true;       ///< step number in the chosen cell, numbers on the path dots
    /// A footer under every frame and under the strip, word-wrapped to the width; none when empty.
    /// traceCaption() gives the usual one: model, image, rule, seed, prediction, truth.
    std::string caption;
};

/// Where things lie in a step panel, in output pixels. The image occupies
/// [imageX, imageX + imageWidth * scale) x [imageY, imageY + imageHeight * scale); grid cell
/// (r, c) of a rows x cols grid spans image columns width*c/cols .. width*(c+1)/cols (integer
/// division) and rows likewise, multiplied by `scale`.
struct StepLayout {
    int scale = 1;
    int panelWidth = 0, panelHeight = 0;
    int imageX = 0, imageY = 0;
    int titleHeight = 0;  ///< the title bar: rows [0, titleHeight)
    int legendY = 0;      ///< the legend row starts here (below the image); panelHeight if none
    int captionY = 0;     ///< the caption footer starts here; panelHeight if none
};

/// Gap between panels in a strip, and the width of the strip's final output panel.
constexpr int kStripGap = 4;
constexpr int kOutputPanelWidth = 200;
/// The outline colour of chosen cells (RGB).
constexpr std::uint8_t kChosenColour[3] = {0, 255, 255};

/// The layout every step panel of `trace` shares for an image of this size. It depends only on
/// the image size, the trace's step count and rule, and the options, so all frames match.
StepLayout layoutTraceStep(int imageWidth, int imageHeight, const Trace& trace,
                           const RenderOptions& options = {});

/// What a slide needs to say under a figure: "model, image, rule R, seed N, predicted X (p 0.93),
/// true Y" (a captioner's caption in quotes; parts the trace lacks are left out). ASCII only, as
/// the renderer's font has no other glyphs.
std::string traceCaption(const Trace& trace);

/// The lines `caption` wraps to at `width` output pixels (the footer has one row per line).
std::vector<std::string> wrapCaption(const std::string& caption, int width);

/// The inferno colour map at t in [0, 1] (clamped), as RGB; luminance rises with t.
std::array<std::uint8_t, 3> infernoColour(double t);

/// Draws step `step` (0-based) of `trace` over `image` (grey or RGB; coordinates in the trace
/// are image pixels, rescaled if trace.imageWidth/Height differ from the image's size). Returns
/// a new RGB image of layoutTraceStep's size. Parts of the trace that fail validateTrace
/// (grid size mismatch, cells off the grid) are skipped, not drawn.
/// Throws std::invalid_argument for an empty image or one with 2 or 4+ channels, and
/// std::out_of_range for a step outside [0, trace.steps.size()): both are caller bugs.
/// Thread-safety: pure function; safe to call concurrently.
Image renderTraceStep(const Image& image, const Trace& trace, int step,
                      const RenderOptions& options = {});

/// All steps side by side in one row (kStripGap apart), then a kOutputPanelWidth panel with the
/// top-5 output probabilities (trace.output.probs, named by trace.classNames; the ground-truth
/// label marked in green). Width: T * panelWidth + T * kStripGap + kOutputPanelWidth; the
/// caption, when given, is one footer along the whole strip. RGB.
/// Throws like renderTraceStep for a bad image. Thread-safety: pure function.
Image renderTraceStrip(const Image& image, const Trace& trace, const RenderOptions& options = {});

/// The widest strip renderTraceStrip draws (a PNG viewer's and libpng's practical limit).
constexpr std::int64_t kMaxStripWidth = 100000;
/// The width renderTraceStrip gives `steps` steps of an image of this size, known before any
/// trace is run (so a strip that cannot be drawn is refused before the work).
std::int64_t traceStripWidth(int imageWidth, int imageHeight, std::int64_t steps, const RenderOptions& options = {});

/// One frame per step (renderTraceStep), all of the same size; empty for a trace without steps.
/// Throws like renderTraceStep for a bad image. Thread-safety: pure function.
std::vector<Image> renderTraceFrames(const Image& image, const Trace& trace,
                                     const RenderOptions& options = {});

}  // namespace saccade
