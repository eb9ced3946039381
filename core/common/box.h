#pragma once

namespace saccade {

/// An axis-aligned box in image pixels, origin top-left.
struct Box {
    double x = 0, y = 0, w = 0, h = 0;
    bool operator==(const Box& o) const { return x == o.x && y == o.y && w == o.w && h == o.h; }
    /// Area of the overlap with `o` (0 when disjoint).
    double intersectionArea(const Box& o) const;
};

inline double Box::intersectionArea(const Box& o) const {
    const double ix = (x + w < o.x + o.w ? x + w : o.x + o.w) - (x > o.x ? x : o.x);
    const double iy = (y + h < o.y + o.h ? y + h : o.y + o.h) - (y > o.y ? y : o.y);
    return ix > 0 && iy > 0 ? ix * iy : 0.0;
}

}  // namespace saccade
