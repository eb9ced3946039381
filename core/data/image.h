#pragma once
// Image: 8-bit pixels in plain memory, the currency of core/data (no OpenCV in this header).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace saccade {

/// Row-major, channels interleaved (HWC): grey (1) or RGB (3). Value type.
struct Image {
    int width = 0, height = 0, channels = 1;
    std::vector<std::uint8_t> pixels;  ///< width * height * channels bytes

    static Image zeros(int width, int height, int channels = 1) {
        return {width, height, channels,
                std::vector<std::uint8_t>(static_cast<size_t>(width) * height * channels, 0)};
    }
    bool empty() const { return pixels.empty(); }
    std::uint8_t& at(int x, int y, int c = 0) {
        return pixels[(static_cast<size_t>(y) * width + x) * channels + c];
    }
    std::uint8_t at(int x, int y, int c = 0) const {
        return pixels[(static_cast<size_t>(y) * width + x) * channels + c];
    }
};

}  // namespace saccade
