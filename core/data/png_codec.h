#pragma once
// A PNG codec on zlib alone, for builds whose OpenCV lacks its imgcodecs module
// (-DSACCADE_OPENCV_CODECS=OFF: a headless or GPU machine with only OpenCV's core and imgproc;
// imgcodecs alone pulls in GDAL and GDCM, over 150 MB of libraries). It reads what OpenCV's
// imdecode(IMREAD_ANYCOLOR | IMREAD_ANYDEPTH) reads from a PNG and gives the same samples: every
// colour type and bit depth, grey or RGB out, alpha dropped, 16-bit kept. Interlaced (Adam7) PNGs
// are refused with a one-line error.

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

struct PngPixels {
    int width = 0;
    int height = 0;
    int channels = 0;  ///< 1 (grey) or 3 (RGB, in that order)
    int depth = 8;     ///< bits per sample: 8 or 16
    std::vector<std::uint16_t> samples;  ///< row-major, channels interleaved
};

/// Decodes a PNG whose chunk framing and CRCs the caller has checked (pngProblem). Errors: a bad
/// header, an interlaced image, damaged compressed data, too few or too many pixel bytes.
Result<PngPixels> decodePng(const std::string& bytes);

/// The PNG bytes of 8-bit grey (channels 1) or RGB (channels 3) pixels, row-major.
std::string encodePng(const std::uint8_t* pixels, int width, int height, int channels);

}  // namespace saccade
