#include "render/atlas_render.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace saccade {

Rgb atlasColour(bool query, double t) {
    t = std::clamp(t, 0.0, 1.0);
    const auto mix = [t](double a, double b) { return std::uint8_t(std::lround(a + (b - a) * t)); };
    return query ? Rgb{mix(25, 70), mix(50, 210), mix(140, 235)} : Rgb{mix(140, 250), mix(25, 190), mix(25, 40)};
}

FigureCanvas renderAtlas(const Atlas& a, int width, int height) {
    width = std::max(width, 300);
    height = std::max(height, 300);
    FigureCanvas c(width, height);
    const std::string file = a.model.substr(a.model.find_last_of('/') == std::string::npos ? 0 : a.model.find_last_of('/') + 1);
    const std::string layer = a.modelLayer.empty() ? "layer " + std::to_string(a.layer) : a.modelLayer;
    c.fittedText(12, 24, file + ": " + layer + ", head " + std::to_string(a.head) + " of " +
                             std::to_string(a.heads) + ", " + std::to_string(a.inputs) + " inputs, " + a.method,
                 16, width - 24, {20, 20, 20});
    // The legend: the two ramps, first position to last.
    const double top = 44;
    for (int q = 0; q < 2; ++q) {
        const double x0 = 12 + q * (width - 24) / 2.0;
        for (int i = 0; i < 40; ++i) c.fill(x0 + i * 2.5, top - 10, 2.5, 12, atlasColour(q == 0, i / 39.0));
        c.fittedText(x0 + 106, top, q == 0 ? "queries, first to last " + a.positions : "keys, first to last " + a.positions,
                     12, (width - 24) / 2.0 - 112, {60, 60, 60});
    }
    if (a.points.empty()) return c;
    double minX = a.points[0].x, maxX = minX, minY = a.points[0].y, maxY = minY;
    int last[2] = {1, 1};  // keys', queries' (cross-attention: two sequences of their own lengths)
    for (const auto& p : a.points) {
        minX = std::min(minX, p.x), maxX = std::max(maxX, p.x), minY = std::min(minY, p.y), maxY = std::max(maxY, p.y);
        last[p.query] = std::max(last[p.query], p.position);
    }
    const double left = 12, plotTop = top + 14, w = width - 24, h = height - plotTop - 12;
    c.outline(left, plotTop, w, h, {200, 200, 200});
    // One scale for both axes, so that distances read alike across and down.
    const double span = std::max({maxX - minX, maxY - minY, 1e-12});
    const double unit = std::min(w, h) * 0.94 / span;
    const double ox = left + w / 2 - (minX + maxX) / 2 * unit, oy = plotTop + h / 2 + (minY + maxY) / 2 * unit;
    for (const auto& p : a.points)
        c.fill(ox + p.x * unit - 1.5, oy - p.y * unit - 1.5, 3, 3, atlasColour(p.query, double(p.position) / last[p.query]));
    return c;
}

}  // namespace saccade
