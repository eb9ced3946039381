#pragma once
// An Image as an OpenCV matrix, for the renderers (contact sheets, trace strips).

#include <opencv2/core.hpp>

#include "data/image.h"

namespace saccade {

/// A new 8-bit RGB copy of `image` (grey is replicated). Throws std::invalid_argument for an
/// empty image or one with other than 1 or 3 channels.
cv::Mat toRgbMat(const Image& image);

}  // namespace saccade
