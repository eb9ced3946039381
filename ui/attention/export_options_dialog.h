#pragma once
// Before an image export (view PNG/SVG, strip, GIF): the size, as pixels per image pixel, and
// the caption written under the figure (model, image, rule, seed, prediction by default), so a
// figure is ready for a slide without editing.

#include <QSize>
#include <QString>
#include <optional>

#include "ui/attention/trace_export.h"

class QWidget;

namespace saccade::ui {

struct ExportOptionsRequest {
    QString what;            ///< e.g. "View as PNG", the dialog's title
    QSize imageSize;         ///< the image's size in pixels, to show the output size per scale
    int automaticScale = 1;  ///< the scale "auto" stands for
    int scale = 0;           ///< initial choice (0: auto)
    QString caption;         ///< the suggested caption
    bool captionOn = true;
};

/// Asks; nullopt when the user cancels. The result's overlays are left at their defaults.
std::optional<ImageExportOptions> askImageExportOptions(QWidget* parent, const ExportOptionsRequest& request);

}  // namespace saccade::ui
