#include "data/canvas.h"

#include <algorithm>

#include "common/seed_mix.h"

namespace saccade {

namespace {
constexpr std::uint64_t kCanvasStream = 0xca5;
}

Box inkBox(const Image& image, int x0, int y0, int w, int h, double ox, double oy) {
    int minX = w, minY = h, maxX = -1, maxY = -1;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (image.at(x0 + x, y0 + y) > 0) {
                minX = std::min(minX, x);
                maxX = std::max(maxX, x);
                minY = std::min(minY, y);
                maxY = std::max(maxY, y);
            }
    if (maxX < 0) return {ox, oy, double(w), double(h)};
    return {ox + minX, oy + minY, double(maxX - minX + 1), double(maxY - minY + 1)};
}

void pasteMax(Image& dst, const Image& src, int x, int y) {
    for (int sy = 0; sy < src.height; ++sy) {
        const int dy = y + sy;
        if (dy < 0 || dy >= dst.height) continue;
        for (int sx = 0; sx < src.width; ++sx) {
            const int dx = x + sx;
            if (dx < 0 || dx >= dst.width) continue;
            auto& d = dst.at(dx, dy);
            d = std::max(d, src.at(sx, sy));
        }
    }
}

Sample composeCanvas(const ObjectSource& source, Split split, std::int64_t index,
                     const CanvasOptions& o) {
    const auto n = source.size(split);
    const auto objectIndex = index % n;
    std::mt19937_64 rng(mixSeed(o.seed, kCanvasStream + static_cast<int>(split),
                                static_cast<std::uint64_t>(index)));
    const Image object = source.image(split, objectIndex);
    Sample s;
    s.label = source.label(split, objectIndex);
    s.image = Image::zeros(o.size, o.size, 1);
    const int x = static_cast<int>(uniformInt(rng, 0, o.size - object.width));
    const int y = static_cast<int>(uniformInt(rng, 0, o.size - object.height));

    for (int k = 0; n > 1 && k < o.distractors; ++k) {
        auto other = uniformInt(rng, 0, n - 2);
        if (other >= objectIndex) ++other;  // never a crop of the object itself
        const Image piece = source.image(split, other);
        const int c = o.distractorSize;
        const int cx = static_cast<int>(uniformInt(rng, 0, piece.width - c));
        const int cy = static_cast<int>(uniformInt(rng, 0, piece.height - c));
        const int px = static_cast<int>(uniformInt(rng, 0, o.size - c));
        const int py = static_cast<int>(uniformInt(rng, 0, o.size - c));
        Image crop = Image::zeros(c, c, 1);
        for (int yy = 0; yy < c; ++yy)
            for (int xx = 0; xx < c; ++xx) crop.at(xx, yy) = piece.at(cx + xx, cy + yy);
        pasteMax(s.image, crop, px, py);
        s.distractors.push_back({double(px), double(py), double(c), double(c)});
    }
    pasteMax(s.image, object, x, y);
    s.box = inkBox(object, 0, 0, object.width, object.height, x, y);
    return s;
}

}  // namespace saccade
