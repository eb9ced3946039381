#include "data/image_fit.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

namespace saccade {

namespace {
constexpr int kMaxFitSide = 8192;

std::string sideText(int h, int w) { return h == w ? std::to_string(h) : std::to_string(h) + "x" + std::to_string(w); }
}  // namespace

Result<Unit> checkImageFit(const ImageFit& fit) {
    for (int v : {fit.resize, fit.cropHeight, fit.cropWidth})
        if (v < 0 || v > kMaxFitSide) return Error{"a resize or crop side must be 1.." + std::to_string(kMaxFitSide) + ", not " + std::to_string(v)};
    if ((fit.cropHeight == 0) != (fit.cropWidth == 0)) return Error{"a centre crop needs both its height and its width"};
    if (fit.resize > 0 && std::max(fit.cropHeight, fit.cropWidth) > fit.resize)
        return Error{"the centre crop " + sideText(fit.cropHeight, fit.cropWidth) + " is larger than the resize " +
                     std::to_string(fit.resize) + " (the shorter side after resizing)"};
    return Unit{};
}

FitGeometry fitGeometry(int width, int height, const ImageFit& fit) {
    FitGeometry g;
    g.resizedWidth = width;
    g.resizedHeight = height;
    if (fit.resize > 0 && std::min(width, height) != fit.resize) {
        const double s = double(fit.resize) / std::min(width, height);
        // The shorter side lands exactly on `resize`, the longer one is rounded.
        g.resizedWidth = width <= height ? fit.resize : std::max(fit.resize, int(std::lround(width * s)));
        g.resizedHeight = height < width ? fit.resize : std::max(fit.resize, int(std::lround(height * s)));
    }
    g.scaleX = double(g.resizedWidth) / width;
    g.scaleY = double(g.resizedHeight) / height;
    g.width = fit.cropWidth > 0 ? fit.cropWidth : g.resizedWidth;
    g.height = fit.cropHeight > 0 ? fit.cropHeight : g.resizedHeight;
    g.cropX = (g.resizedWidth - g.width) / 2;
    g.cropY = (g.resizedHeight - g.height) / 2;
    return g;
}

std::optional<Box> FitGeometry::map(const Box& box) const {
    const double x0 = std::max(0.0, box.x * scaleX - cropX), y0 = std::max(0.0, box.y * scaleY - cropY);
    const double x1 = std::min(double(width), (box.x + box.w) * scaleX - cropX);
    const double y1 = std::min(double(height), (box.y + box.h) * scaleY - cropY);
    if (x1 <= x0 || y1 <= y0) return std::nullopt;
    return Box{x0, y0, x1 - x0, y1 - y0};
}

Result<Image> fitImage(const Image& image, const ImageFit& fit) {
    if (auto ok = checkImageFit(fit); !ok) return Error{ok.error()};
    if (image.empty() || image.width <= 0 || image.height <= 0) return Error{"the image is empty"};
    // An image of the crop's size is the model's input already (a folder cropped beforehand).
    if (fit.cropHeight > 0 && image.width == fit.cropWidth && image.height == fit.cropHeight) return image;
    const auto g = fitGeometry(image.width, image.height, fit);
    if (g.width == image.width && g.height == image.height && g.resizedWidth == image.width) return image;
    if (g.resizedWidth < g.width || g.resizedHeight < g.height)
        return Error{"the image is " + std::to_string(g.resizedWidth) + "x" + std::to_string(g.resizedHeight) +
                     ", smaller than the centre crop " + std::to_string(g.width) + "x" + std::to_string(g.height) + " (give a resize)"};
    if (image.channels != 1 && image.channels != 3)
        return Error{"the image has " + std::to_string(image.channels) + " channels; expected 1 or 3"};
    cv::Mat mat(image.height, image.width, image.channels == 3 ? CV_8UC3 : CV_8UC1,
                const_cast<std::uint8_t*>(image.pixels.data()));
    cv::Mat scaled = mat;
    if (g.resizedWidth != image.width || g.resizedHeight != image.height)
        cv::resize(mat, scaled, cv::Size(g.resizedWidth, g.resizedHeight), 0, 0, g.scaleX < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    const cv::Mat out = scaled(cv::Rect(g.cropX, g.cropY, g.width, g.height));
    Image result = Image::zeros(out.cols, out.rows, image.channels);
    const std::size_t rowBytes = std::size_t(out.cols) * std::size_t(image.channels);
    for (int r = 0; r < out.rows; ++r) std::copy_n(out.ptr<std::uint8_t>(r), rowBytes, result.pixels.data() + std::size_t(r) * rowBytes);
    return result;
}

Image withChannels(const Image& image, int channels) {
    if (image.channels == channels || image.empty() || (channels != 1 && channels != 3) || (image.channels != 1 && image.channels != 3))
        return image;
    cv::Mat mat(image.height, image.width, image.channels == 3 ? CV_8UC3 : CV_8UC1, const_cast<std::uint8_t*>(image.pixels.data()));
    cv::Mat out;
    cv::cvtColor(mat, out, channels == 3 ? cv::COLOR_GRAY2RGB : cv::COLOR_RGB2GRAY);
    Image result = Image::zeros(image.width, image.height, channels);
    std::copy_n(out.ptr<std::uint8_t>(0), result.pixels.size(), result.pixels.data());
    return result;
}

std::string describeFit(const ImageFit& fit) {
    std::string s;
    if (fit.resize > 0) s = "resize " + std::to_string(fit.resize);
    if (fit.cropHeight > 0) s += (s.empty() ? "" : ", ") + std::string("centre crop ") + sideText(fit.cropHeight, fit.cropWidth);
    return s.empty() ? "none" : s;
}

}  // namespace saccade
