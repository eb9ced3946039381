#include "data/augment.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include <torch/torch.h>

namespace saccade {

namespace {

// The pixel span [lo, hi) of a box edge pair, clamped to [0, side].
std::pair<std::int64_t, std::int64_t> span(double start, double length, std::int64_t side) {
    const auto lo = std::clamp<std::int64_t>(std::int64_t(std::floor(start)), 0, side);
    const auto hi = std::clamp<std::int64_t>(std::int64_t(std::ceil(start + length)), lo, side);
    return {lo, hi};
}

}  // namespace

torch::Tensor shiftKeepingBoxes(const torch::Tensor& images, const torch::Tensor& boxes, std::uint64_t seed) {
    const auto b = images.size(0), h = images.size(2), w = images.size(3);
    const auto box = boxes.to(torch::kCPU, torch::kDouble).contiguous();
    const auto a = box.accessor<double, 2>();
    std::mt19937_64 random(seed);
    auto out = torch::zeros_like(images);
    for (std::int64_t i = 0; i < b; ++i) {
        std::int64_t dx = 0, dy = 0;
        if (a[i][2] > 0 && a[i][3] > 0) {
            // The box's pixel span, clamped to the canvas; the offsets that keep all of it on.
            const auto [x0, x1] = span(a[i][0], a[i][2], w);
            const auto [y0, y1] = span(a[i][1], a[i][3], h);
            dx = std::uniform_int_distribution<std::int64_t>(-x0, w - x1)(random);
            dy = std::uniform_int_distribution<std::int64_t>(-y0, h - y1)(random);
        }
        const auto cw = w - std::abs(dx), ch = h - std::abs(dy);
        out[i].narrow(1, std::max<std::int64_t>(0, dy), ch).narrow(2, std::max<std::int64_t>(0, dx), cw)
            .copy_(images[i].narrow(1, std::max<std::int64_t>(0, -dy), ch).narrow(2, std::max<std::int64_t>(0, -dx), cw));
    }
    return out;
}

std::int64_t movableBoxes(const torch::Tensor& boxes, std::int64_t height, std::int64_t width) {
    const auto box = boxes.to(torch::kCPU, torch::kDouble).contiguous();
    const auto a = box.accessor<double, 2>();
    std::int64_t movable = 0;
    for (std::int64_t i = 0; i < box.size(0); ++i) {
        if (a[i][2] <= 0 || a[i][3] <= 0) continue;
        const auto [x0, x1] = span(a[i][0], a[i][2], width);
        const auto [y0, y1] = span(a[i][1], a[i][3], height);
        movable += (x1 - x0 < width) || (y1 - y0 < height);
    }
    return movable;
}

}  // namespace saccade
