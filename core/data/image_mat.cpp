#include "data/image_mat.h"

#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

namespace saccade {

cv::Mat toRgbMat(const Image& img) {
    if (img.empty() || img.width <= 0 || img.height <= 0) throw std::invalid_argument("the image is empty");
    if (img.channels != 1 && img.channels != 3)
        throw std::invalid_argument("the image has " + std::to_string(img.channels) + " channels; expected 1 or 3");
    cv::Mat mat(img.height, img.width, img.channels == 3 ? CV_8UC3 : CV_8UC1,
                const_cast<std::uint8_t*>(img.pixels.data()));
    cv::Mat rgb;
    if (img.channels == 3)
        rgb = mat.clone();
    else
        cv::cvtColor(mat, rgb, cv::COLOR_GRAY2RGB);
    return rgb;
}

}  // namespace saccade
