#include "ui/image_convert.h"

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

