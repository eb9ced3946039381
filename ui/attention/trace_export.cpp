#include "attention/trace_export.h"

#include <QBuffer>
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

}  // namespace

int exportScale(int imageWidth) { return std::clamp(480 / std::max(1, imageWidth), 1, 16); }

QString exportViewPng(const AttentionCanvas& canvas, const QString& path) {
    const QImage image = canvas.renderToImage(exportScale(canvas.image().width()));
    if (image.isNull()) return QObject::tr("nothing to export: no image is shown");
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) return QObject::tr("could not encode the PNG");
    return writeFileAtomically(path, bytes);
}

QString exportViewSvg(const AttentionCanvas& canvas, const QString& path) {
    if (canvas.image().isNull()) return QObject::tr("nothing to export: no image is shown");
    const int scale = exportScale(canvas.image().width());
    const QSize size(canvas.image().width() * scale, canvas.image().height() * scale + 34);
    return saveSvg(size, QStringLiteral("Saccade attention view"), [&](QPainter& p) {
        p.fillRect(QRect(QPoint(0, 0), size), QColor(38, 40, 44));
        canvas.paintScene(p, QTransform::fromScale(scale, scale),
                          QRectF(4, canvas.image().height() * scale, size.width() - 8, 34));
    }, path);
}

QString exportStripPng(const Image& image, const Trace& trace, const QString& path) {
    try {
        return errorOf(saveImagePng(renderTraceStrip(image, trace), path.toStdString()));
    } catch (const std::exception& e) {
        return QObject::tr("cannot draw the strip: %1").arg(QString::fromUtf8(e.what()));
    }
}

QString exportGif(const Image& image, const Trace& trace, const QString& path) {
    try {
        return errorOf(writeGif(renderTraceFrames(image, trace), kGifDelayCentiseconds, path.toStdString()));
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
