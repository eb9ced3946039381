#pragma once
// Conversions between core's Image (8-bit grey or RGB, HWC) and QImage.

#include <QImage>

#include "data/image.h"

namespace saccade::ui {

/// A deep copy as Format_Grayscale8 or Format_RGB888; a null QImage for an empty Image.
QImage toQImage(const Image& image);

}  // namespace saccade::ui

namespace saccade::ui {

/// `image` fitted into size x size (aspect kept, black borders) and converted to `channels`
/// (1: grey, 3: RGB).
Image fitToModelInput(const QImage& image, int size, int channels);

}  // namespace saccade::ui
