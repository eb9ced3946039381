#include "attention/trace_export.h"

#include <QBuffer>
#include <QFontMetrics>
#include <QPainter>
#include <algorithm>

#include "attention/attention_canvas.h"
#include "view_export.h"
#include "common/atomic_file.h"
#include "data/image_io.h"
#include "render/gif_writer.h"
#include "render/trace_render.h"

namespace saccade::ui {

namespace {

constexpr int kGifDelayCentiseconds = 80;

template <class R>
QString errorOf(const Result<R>& result) {
    return result ? QString() : QString::fromStdString(result.error());
}

RenderOptions renderOptions(const ImageExportOptions& o) {
    RenderOptions r;
    r.scale = o.scale;
    r.heatmap = o.overlays.heatmap;
    r.heatmapOpacity = o.overlays.heatmapOpacity;
    r.chosen = o.overlays.chosen;
    r.path = o.overlays.path;
    r.groundTruth = o.overlays.truth;
    r.caption = o.caption.toStdString();
    return r;
}

int viewScale(const AttentionCanvas& canvas, const ImageExportOptions& o) {
    return o.scale > 0 ? std::min(o.scale, 16) : exportScale(canvas.image().width());
}

// The caption's wrapped height at `width`, and drawing it in the footer starting at `top`.
constexpr int kCaptionPad = 6;
QFont captionFont() {
    QFont font;
    font.setPixelSize(13);
    return font;
}
int captionHeight(const QString& caption, int width) {
    if (caption.isEmpty()) return 0;
    const QFontMetrics metrics(captionFont());
    return metrics.boundingRect(QRect(0, 0, width - 2 * kCaptionPad, 10000), Qt::TextWordWrap, caption).height() +
           2 * kCaptionPad;
}
void drawCaption(QPainter& p, const QString& caption, int top, int width) {
    if (caption.isEmpty()) return;
    p.setFont(captionFont());
    p.setPen(QColor(235, 235, 235));
    p.drawText(QRect(kCaptionPad, top + kCaptionPad, width - 2 * kCaptionPad, 10000),
               Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, caption);
}

}  // namespace

int exportScale(int imageWidth) { return std::clamp(480 / std::max(1, imageWidth), 1, 16); }

QString exportViewPng(const AttentionCanvas& canvas, const QString& path, const ImageExportOptions& options) {
    const QImage view = canvas.renderToImage(viewScale(canvas, options));
    if (view.isNull()) return QObject::tr("nothing to export: no image is shown");
    QImage image(view.width(), view.height() + captionHeight(options.caption, view.width()), view.format());
    image.fill(QColor(38, 40, 44));
    {
        QPainter p(&image);
        p.drawImage(0, 0, view);
        drawCaption(p, options.caption, view.height(), view.width());
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) return QObject::tr("could not encode the PNG");
    return writeFileAtomically(path, bytes);
}

QString exportViewSvg(const AttentionCanvas& canvas, const QString& path, const ImageExportOptions& options) {
    if (canvas.image().isNull()) return QObject::tr("nothing to export: no image is shown");
    const int scale = viewScale(canvas, options);
    const int width = canvas.image().width() * scale, sceneHeight = canvas.image().height() * scale + 34;
    const QSize size(width, sceneHeight + captionHeight(options.caption, width));
    return saveSvg(size, QStringLiteral("Saccade attention view"), [&](QPainter& p) {
        p.fillRect(QRect(QPoint(0, 0), size), QColor(38, 40, 44));
        canvas.paintScene(p, QTransform::fromScale(scale, scale),
                          QRectF(4, canvas.image().height() * scale, width - 8, 34));
        drawCaption(p, options.caption, sceneHeight, width);
    }, path);
}

QString exportStripPng(const Image& image, const Trace& trace, const QString& path,
                       const ImageExportOptions& options) {
    try {
        return errorOf(saveImagePng(renderTraceStrip(image, trace, renderOptions(options)), path.toStdString()));
    } catch (const std::exception& e) {
        return QObject::tr("cannot draw the strip: %1").arg(QString::fromUtf8(e.what()));
    }
}

QString exportGif(const Image& image, const Trace& trace, const QString& path, const ImageExportOptions& options) {
    try {
        return errorOf(writeGif(renderTraceFrames(image, trace, renderOptions(options)), kGifDelayCentiseconds,
                                path.toStdString()));
    } catch (const std::exception& e) {
        return QObject::tr("cannot draw the frames: %1").arg(QString::fromUtf8(e.what()));
    }
}

QString exportTraceJson(const Trace& trace, const QString& path) {
    return errorOf(saveTrace(trace, path.toStdString()));
}

QString exportTraceCsv(const Trace& trace, const QString& path) {
    return errorOf(writeFileAtomic(path.toStdString(), traceToCsv(trace)));
}

}  // namespace saccade::ui
