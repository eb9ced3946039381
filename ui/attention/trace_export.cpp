#include "ui/attention/trace_export.h"

#include <QBuffer>
#include <QFontMetrics>
#include <QPainter>
#include <algorithm>

#include "ui/attention/attention_canvas.h"
#include "ui/view_export.h"
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

constexpr int kPaneGap = 8;  ///< between the panes of a side-by-side view

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

QString exportViewPng(const QList<const AttentionCanvas*>& panes, const QString& path, const ImageExportOptions& options) {
    if (panes.isEmpty() || panes.front()->image().isNull()) return QObject::tr("nothing to export: no image is shown");
    const int scale = viewScale(*panes.front(), options);
    QList<QImage> views;
    int width = 0, height = 0;
    for (const AttentionCanvas* pane : panes) {
        const QImage view = pane->renderToImage(scale);
        if (view.isNull()) continue;
        width += (views.isEmpty() ? 0 : kPaneGap) + view.width();
        height = std::max(height, view.height());
        views << view;
    }
    QImage image(width, height + captionHeight(options.caption, width), QImage::Format_RGB32);
    image.fill(QColor(38, 40, 44));
    {
        QPainter p(&image);
        int x = 0;
        for (const QImage& view : views) {
            p.drawImage(x, 0, view);
            x += view.width() + kPaneGap;
        }
        drawCaption(p, options.caption, height, width);
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) return QObject::tr("could not encode the PNG");
    return writeFileAtomically(path, bytes);
}

QString exportViewSvg(const QList<const AttentionCanvas*>& panes, const QString& path, const ImageExportOptions& options) {
    QList<const AttentionCanvas*> shown;
    for (const AttentionCanvas* pane : panes)
        if (!pane->image().isNull()) shown << pane;
    if (shown.isEmpty()) return QObject::tr("nothing to export: no image is shown");
    const int scale = viewScale(*shown.front(), options);
    int width = 0, sceneHeight = 0;
    for (const AttentionCanvas* pane : shown) {
        width += (width > 0 ? kPaneGap : 0) + pane->image().width() * scale;
        sceneHeight = std::max(sceneHeight, pane->image().height() * scale + 34);
    }
    const QSize size(width, sceneHeight + captionHeight(options.caption, width));
    return saveSvg(size, QStringLiteral("Saccade attention view"), [&](QPainter& p) {
        p.fillRect(QRect(QPoint(0, 0), size), QColor(38, 40, 44));
        int x = 0;
        for (const AttentionCanvas* pane : shown) {
            const int paneWidth = pane->image().width() * scale;
            pane->paintScene(p, QTransform::fromScale(scale, scale) * QTransform::fromTranslate(x, 0),
                             QRectF(x + 4, pane->image().height() * scale, paneWidth - 8, 34));
            x += paneWidth + kPaneGap;
        }
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
