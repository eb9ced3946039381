#pragma once
// How an image of any size becomes a model's input, as torchvision's Resize and CenterCrop do it:
// the shorter side scaled to `resize` pixels (the aspect ratio kept), then the centre cut out at
// `cropHeight` x `cropWidth`. Photographs of any size then open in a model that takes 224x224,
// and a folder may hold images of many sizes. Engine header: no OpenCV.

#include <optional>
#include <string>

#include "common/box.h"
#include "common/result.h"
#include "data/image.h"

namespace saccade {

struct ImageFit {
    int resize = 0;                     ///< the shorter side after resizing; 0: not resized
    int cropHeight = 0, cropWidth = 0;  ///< the centre crop; 0: not cropped
    bool operator==(const ImageFit& o) const {
        return resize == o.resize && cropHeight == o.cropHeight && cropWidth == o.cropWidth;
    }
    bool operator!=(const ImageFit& o) const { return !(*this == o); }
};

/// The fit of a model that takes side x side images: resize to `side`, crop side x side.
inline ImageFit squareFit(int side) { return {side, side, side}; }

/// An Error when a setting cannot work: a side outside 1..8192, or a crop larger than the resize
/// (its shorter side).
Result<Unit> checkImageFit(const ImageFit& fit);

/// The image resized and cropped as `fit` says (area averaging when shrinking, bilinear when
/// growing). An image already of the crop's size is returned as it is. An Error names the image
/// when it is smaller than the crop and there is no resize.
Result<Image> fitImage(const Image& image, const ImageFit& fit);

/// Where a fit puts an image of `width` x `height`: its size after the resize, and the crop's top
/// left corner and size in that resized image.
struct FitGeometry {
    int resizedWidth = 0, resizedHeight = 0;
    int cropX = 0, cropY = 0, width = 0, height = 0;  ///< the output
    double scaleX = 1, scaleY = 1;                    ///< resized / original
    /// A box of the original image in output pixels, cut to the output; nullopt when nothing is left.
    std::optional<Box> map(const Box& box) const;
};
FitGeometry fitGeometry(int width, int height, const ImageFit& fit);

/// The image with `channels` channels (1 or 3): grey widened to RGB, RGB to luminance.
Image withChannels(const Image& image, int channels);

/// "resize 256, centre crop 224", "centre crop 224x160", or "none".
std::string describeFit(const ImageFit& fit);

}  // namespace saccade
