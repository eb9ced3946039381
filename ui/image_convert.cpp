#include "image_convert.h"

#include <cstring>

namespace saccade::ui {

QImage toQImage(const Image& image) {
    if (image.empty() || (image.channels != 1 && image.channels != 3)) return {};
    const auto format = image.channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888;
    QImage out(image.width, image.height, format);
    const size_t rowBytes = size_t(image.width) * size_t(image.channels);
    for (int y = 0; y < image.height; ++y)  // QImage rows are 4-byte aligned
        std::memcpy(out.scanLine(y), image.pixels.data() + size_t(y) * rowBytes, rowBytes);
    return out;
}

}  // namespace saccade::ui

#include <QPainter>

namespace saccade::ui {

Image fitToModelInput(const QImage& image, int size, int channels) {
    QImage canvas(size, size, QImage::Format_RGB888);
    canvas.fill(Qt::black);
    {
        QPainter p(&canvas);
        p.setRenderHint(QPainter::SmoothPixmapTransform, true);
        const QSize fitted = image.size().scaled(size, size, Qt::KeepAspectRatio);
        p.drawImage(QRect(QPoint((size - fitted.width()) / 2, (size - fitted.height()) / 2), fitted), image);
    }
    if (channels == 1) canvas = canvas.convertToFormat(QImage::Format_Grayscale8);
    Image out = Image::zeros(size, size, channels);
    const size_t rowBytes = size_t(size) * size_t(channels);
    for (int y = 0; y < size; ++y)
        std::memcpy(out.pixels.data() + size_t(y) * rowBytes, canvas.constScanLine(y), rowBytes);
    return out;
}

}  // namespace saccade::ui
