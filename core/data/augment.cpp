#include "data/augment.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <torch/torch.h>

namespace saccade {

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
            const auto x0 = std::clamp<std::int64_t>(std::int64_t(std::floor(a[i][0])), 0, w);
            const auto x1 = std::clamp<std::int64_t>(std::int64_t(std::ceil(a[i][0] + a[i][2])), x0, w);
            const auto y0 = std::clamp<std::int64_t>(std::int64_t(std::floor(a[i][1])), 0, h);
            const auto y1 = std::clamp<std::int64_t>(std::int64_t(std::ceil(a[i][1] + a[i][3])), y0, h);
            dx = std::uniform_int_distribution<std::int64_t>(-x0, w - x1)(random);
            dy = std::uniform_int_distribution<std::int64_t>(-y0, h - y1)(random);
        }
        const auto cw = w - std::abs(dx), ch = h - std::abs(dy);
        out[i].narrow(1, std::max<std::int64_t>(0, dy), ch).narrow(2, std::max<std::int64_t>(0, dx), cw)
            .copy_(images[i].narrow(1, std::max<std::int64_t>(0, -dy), ch).narrow(2, std::max<std::int64_t>(0, -dx), cw));
    }
    return out;
}

}  // namespace saccade
