#pragma once
// Exports of the attention page: the current view (PNG, SVG), every step (PNG strip, animated
// GIF, drawn by core's renderer as the CLI does), and the trace itself (JSON, CSV). Every file is
// written atomically. Each function returns an empty string on success, else a readable error.

#include <QString>

#include "data/image.h"
#include "trace/trace.h"

namespace saccade::ui {

class AttentionCanvas;

QString exportViewPng(const AttentionCanvas& canvas, const QString& path);
QString exportViewSvg(const AttentionCanvas& canvas, const QString& path);
QString exportStripPng(const Image& image, const Trace& trace, const QString& path);
QString exportGif(const Image& image, const Trace& trace, const QString& path);
QString exportTraceJson(const Trace& trace, const QString& path);
QString exportTraceCsv(const Trace& trace, const QString& path);

/// The scale that makes an image of this size about 480 pixels wide in view exports.
int exportScale(int imageWidth);

}  // namespace saccade::ui
