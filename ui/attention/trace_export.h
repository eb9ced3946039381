#pragma once
// Exports of the attention page: the current view (PNG, SVG), every step (PNG strip, animated
// GIF, drawn by core's renderer as the CLI does), and the trace itself (JSON, CSV). Every file is
// written atomically. Each function returns an empty string on success, else a readable error.

#include <QList>
#include <QString>

#include "ui/attention/overlay_settings.h"
#include "data/image.h"
#include "trace/trace.h"

namespace saccade::ui {

class AttentionCanvas;

/// How an image export looks: pixels per image pixel (0: exportScale's choice for the view,
/// the renderer's for strip and GIF), the footer caption (none when empty), and the overlays
/// the strip and GIF draw (the view exports draw what the canvas shows).
struct ImageExportOptions {
    int scale = 0;
    QString caption;
    OverlaySettings overlays;
};

/// The view as it is on screen: every pane shown (the attention, and a map beside it), left to
/// right, each with its legend, at one scale.
QString exportViewPng(const QList<const AttentionCanvas*>& panes, const QString& path, const ImageExportOptions& options = {});
QString exportViewSvg(const QList<const AttentionCanvas*>& panes, const QString& path, const ImageExportOptions& options = {});
inline QString exportViewPng(const AttentionCanvas& canvas, const QString& path, const ImageExportOptions& options = {}) {
    return exportViewPng(QList<const AttentionCanvas*>{&canvas}, path, options);
}
inline QString exportViewSvg(const AttentionCanvas& canvas, const QString& path, const ImageExportOptions& options = {}) {
    return exportViewSvg(QList<const AttentionCanvas*>{&canvas}, path, options);
}
QString exportStripPng(const Image& image, const Trace& trace, const QString& path,
                       const ImageExportOptions& options = {});
QString exportGif(const Image& image, const Trace& trace, const QString& path,
                  const ImageExportOptions& options = {});
QString exportTraceJson(const Trace& trace, const QString& path);
QString exportTraceCsv(const Trace& trace, const QString& path);

/// The scale that makes an image of this size about 480 pixels wide in view exports.
int exportScale(int imageWidth);

}  // namespace saccade::ui
