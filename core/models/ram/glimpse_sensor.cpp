#include "models/ram/glimpse_sensor.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace saccade {

namespace F = torch::nn::functional;

torch::Tensor summedAreaTable(const torch::Tensor& images) {
    TORCH_CHECK(images.dim() == 4, "summedAreaTable: images must be [B, C, H, W]");
    // 255 x H x W must fit in int32.
    TORCH_CHECK(images.size(2) * images.size(3) <= 2048 * 2048, "summedAreaTable: images larger than 2048x2048 pixels");
    // 8-bit levels summed as integers: exact at any size, and half the bytes of float64 (float32
    // sums lose up to 2e-4 of a pixel value near the far corner of a 60x60 image).
    const auto levels = (images * 255).round().to(torch::kInt32);
    const auto sat = levels.cumsum(2, torch::kInt32).cumsum(3, torch::kInt32);
    return F::pad(sat, F::PadFuncOptions({1, 0, 1, 0}));
}

std::pair<int, int> locationToPixel(double x, double y, int width, int height) {
    x = std::clamp(x, -1.0, 1.0);
    y = std::clamp(y, -1.0, 1.0);
    return {int(std::floor((x + 1) * 0.5 * width)), int(std::floor((y + 1) * 0.5 * height))};
}

std::vector<Box> glimpseBoxes(double x, double y, const GlimpseGeometry& g) {
    const auto [cx, cy] = locationToPixel(x, y, g.imageWidth, g.imageHeight);
    std::vector<Box> boxes;
    int size = g.size;
    for (int i = 0; i < g.scales; ++i, size *= g.factor)
        boxes.push_back(Box{double(cx - size / 2), double(cy - size / 2), double(size), double(size)});
    return boxes;
}

torch::Tensor glimpseCentres(const torch::Tensor& locations, const GlimpseGeometry& g) {
    TORCH_CHECK(locations.dim() == 2 && locations.size(1) == 2, "extractGlimpses: locations must be [N, 2] (x, y), got ",
                locations.sizes());
    TORCH_CHECK(torch::isfinite(locations).all().item<bool>(),
                "extractGlimpses: a location is NaN or infinite (a diverged policy?)");
    const auto l = locations.to(torch::kFloat).clamp(-1, 1);
    const auto scale = torch::tensor({float(g.imageWidth), float(g.imageHeight)}, torch::TensorOptions().device(l.device()));
    return ((l + 1) * 0.5 * scale).floor().to(torch::kLong);
}

torch::Tensor extractGlimpses(const torch::Tensor& sat, const torch::Tensor& locations,
                              const GlimpseGeometry& g) {
    return extractGlimpsesAt(sat, glimpseCentres(locations.to(sat.device()), g), g);
}

torch::Tensor extractGlimpsesAt(const torch::Tensor& sat, const torch::Tensor& centres,
                                const GlimpseGeometry& g) {
    TORCH_CHECK(sat.dim() == 4 && sat.size(2) == g.imageHeight + 1 && sat.size(3) == g.imageWidth + 1,
                "extractGlimpses: the summed-area table does not match the geometry");
    TORCH_CHECK(centres.dim() == 2 && centres.size(1) == 2, "extractGlimpses: centres must be [N, 2]");
    const auto n = centres.size(0);
    TORCH_CHECK(sat.size(0) == 1 || sat.size(0) == n, "extractGlimpses: ", sat.size(0),
                " tables for ", n, " locations");
    const auto device = sat.device();
    const int w = g.imageWidth, h = g.imageHeight, c = int(sat.size(1));
    const auto longs = torch::TensorOptions().dtype(torch::kLong).device(device);
    const auto centre = centres.to(device, torch::kLong);

    // Per scale, the g + 1 cell boundaries along each axis.
    std::vector<torch::Tensor> offsets;
    std::vector<float> areas;
    int size = g.size;
    for (int i = 0; i < g.scales; ++i, size *= g.factor) {
        const int cell = size / g.size;
        offsets.push_back(torch::arange(g.size + 1, longs) * cell - size / 2);
        areas.push_back(float(cell * cell));
    }
    const auto off = torch::stack(offsets);                                      // [k, g+1]
    const auto xs = (centre.select(1, 0).view({n, 1, 1}) + off).clamp(0, w);     // [N, k, g+1]
    const auto ys = (centre.select(1, 1).view({n, 1, 1}) + off).clamp(0, h);
    const auto index = (ys.unsqueeze(3) * (w + 1) + xs.unsqueeze(2)).view({n, -1});  // [N, k(g+1)^2]

    const auto flat = sat.reshape({sat.size(0), c, -1});
    torch::Tensor corners;  // [N, C, k(g+1)^2]
    if (sat.size(0) == 1)
        corners = flat[0].index_select(1, index.reshape({-1})).view({c, n, -1}).transpose(0, 1);
    else
        corners = flat.gather(2, index.unsqueeze(1).expand({n, c, index.size(1)}));
    // Block sums from the (g + 1) x (g + 1) corner lattice: differences down, then across.
    const auto s = corners.reshape({n, c, g.scales, g.size + 1, g.size + 1});
    const auto down = s.narrow(3, 1, g.size) - s.narrow(3, 0, g.size);
    const auto sums = down.narrow(4, 1, g.size) - down.narrow(4, 0, g.size);
    const auto area = torch::tensor(areas, torch::TensorOptions().device(device)).view({1, 1, g.scales, 1, 1}) * 255;
    return (sums.to(torch::kFloat) / area).transpose(1, 2).reshape({n, -1});  // scale-major, then channel
}

}  // namespace saccade
