#pragma once
// Which overlays the attention canvas draws, and how strongly. Plain values, stored in QSettings.

namespace saccade::ui {

struct OverlaySettings {
    bool heatmap = true;          ///< the step's distribution, inferno colours, with a legend
    double heatmapOpacity = 0.55; ///< 0 (image only) .. 1 (heatmap only)
    bool chosen = true;           ///< the chosen cells / glimpse boxes of the current step
    bool path = true;             ///< the choices of the earlier steps, numbered and joined
    bool truth = true;            ///< ground-truth boxes, when known
    bool grid = false;            ///< the cell grid lines

    bool operator==(const OverlaySettings& o) const {
        return heatmap == o.heatmap && heatmapOpacity == o.heatmapOpacity && chosen == o.chosen &&
               path == o.path && truth == o.truth && grid == o.grid;
    }
    bool operator!=(const OverlaySettings& o) const { return !(*this == o); }
};

}  // namespace saccade::ui
