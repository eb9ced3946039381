#pragma once
// Reading user images (PNG, JPEG, BMP, TIFF) and writing PNGs, with clear errors.

#include <cstdint>
#include <string>

#include "common/atomic_file.h"
#include "common/result.h"
#include "data/image.h"

namespace saccade {

struct ImageLoadOptions {
    std::int64_t maxPixels = 64'000'000;  ///< larger images are refused before decoding
    int channels = 0;  ///< 0: keep grey as grey and colour as RGB; 1: convert to grey; 3: to RGB
};

/// Loads an image file. Errors (one line each, naming the file): missing or unreadable file,
/// empty file, unsupported or corrupt data, more than maxPixels pixels (with its size).
Result<Image> loadImage(const std::string& path, const ImageLoadOptions& options = {});

/// Decodes an in-memory encoded image with the same checks; `what` names it in errors.
Result<Image> decodeImage(const std::string& bytes, const std::string& what,
                          const ImageLoadOptions& options = {});

/// The PNG bytes of a grey or RGB image; an error for an empty or malformed one.
Result<std::string> encodeImagePng(const Image& image);

/// True when images are read by OpenCV's codecs (PNG, JPEG, BMP, TIFF); false in a build with
/// SACCADE_OPENCV_CODECS=OFF, which reads PNG only (data/png_codec.h).
bool readsEveryImageFormat();

/// Writes a PNG atomically (temp file + rename).
Result<Unit> saveImagePng(const Image& image, const std::string& path);

}  // namespace saccade
