#pragma once
// A figure drawn once and written two ways: a list of rectangles, lines and text in pixel
// coordinates, rendered to an RGB Image (OpenCV's Hershey font, ASCII) or to SVG text (escaped).
// Layouts that need both (the length view: PNG in the GUI and CLI, SVG for papers) describe the
// figure once here instead of drawing it twice. Plain types.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "data/image.h"

namespace saccade {

using Rgb = std::array<std::uint8_t, 3>;

/// Escapes &, <, >, " and ' for SVG text and attributes.
std::string escapeXml(const std::string& text);

enum class TextAnchor { Start, Middle, End };

class FigureCanvas {
public:
    FigureCanvas(int width, int height, Rgb background = {255, 255, 255});

    void fill(double x, double y, double w, double h, Rgb colour);
    void outline(double x, double y, double w, double h, Rgb colour, double lineWidth = 1);
    void line(double x0, double y0, double x1, double y1, Rgb colour, double lineWidth = 1, bool dashed = false);
    void polyline(const std::vector<std::pair<double, double>>& points, Rgb colour, double lineWidth = 1.5,
                  bool dashed = false);
    /// `size` is the text height in pixels; y is the baseline. Non-ASCII characters become '?'.
    void text(double x, double y, const std::string& text, double size, Rgb colour, TextAnchor anchor = TextAnchor::Start);

    /// The width `text` takes at `size` (the PNG font's measure; SVG text is close to it).
    static double textWidth(const std::string& text, double size);
    /// text() at `size`, or smaller (down to 8 px) so that it fits in `maxWidth`.
    void fittedText(double x, double y, const std::string& text, double size, double maxWidth, Rgb colour,
                    TextAnchor anchor = TextAnchor::Start);

    int width() const { return m_width; }
    int height() const { return m_height; }
    Image toImage() const;
    std::string toSvg(const std::string& title) const;

private:
    struct Item {
        enum Kind { Fill, Outline, Line, Text } kind;
        std::vector<std::pair<double, double>> points;  // Fill/Outline: (x, y), (w, h)
        Rgb colour;
        double size = 1;
        bool dashed = false;
        std::string text;
        TextAnchor anchor = TextAnchor::Start;
    };
    int m_width, m_height;
    Rgb m_background;
    std::vector<Item> m_items;
};

}  // namespace saccade
