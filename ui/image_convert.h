#pragma once
// Conversions between core's Image (8-bit grey or RGB, HWC) and QImage.

#include <QImage>

#include "data/image.h"

namespace saccade::ui {

/// A deep copy as Format_Grayscale8 or Format_RGB888; a null QImage for an empty Image.
QImage toQImage(const Image& image);

}  // namespace saccade::ui

