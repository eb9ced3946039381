#pragma once
// Small, dependency-free SVG charts for the HTML report: horizontal bars with interval whiskers,
// lines over [0, 1] x [0, 1], and stacked bars. Each returns one <svg> element with its own
// width and height, text escaped, and a <title> for screen readers.

#include <string>
#include <vector>

namespace saccade {

/// `v` with exactly `decimals` decimals ("n/a" for NaN or infinity), for the report's text and figures.
std::string fixedNumber(double v, int decimals);

/// Escapes &, <, >, " and ' for HTML and SVG text and attributes.
std::string escapeHtml(const std::string& text);

struct BarRow {
    std::string label;
    double value = 0;               ///< in [0, 1]
    double low = -1, high = -1;     ///< an interval to draw as a whisker; none when low < 0
    bool highlight = false;         ///< drawn in the accent colour
};
/// One bar per row on a 0..1 axis (ticks every 0.25), the value printed at the bar's end.
std::string svgBars(const std::string& title, const std::vector<BarRow>& rows, int width = 640,
                    const std::string& highlightColour = "#d62728");

struct LineSeries {
    std::string name, colour;  ///< CSS colour, e.g. "#1f77b4"
    bool dashed = false;
    std::vector<std::pair<double, double>> points;
};
/// Lines over x in [0, xMax] and y in [0, 1], with a legend under the plot.
std::string svgLines(const std::string& title, const std::string& xTitle, const std::string& yTitle,
                     const std::vector<LineSeries>& series, double xMax = 1, int width = 640, int height = 300);

struct StackedRow {
    std::string label;
    std::vector<double> values;  ///< one per segment name, >= 0
};
/// One horizontal bar per row split into segments (same order and colours in every row), on an
/// axis from 0 to the largest row total, with `unit` after the numbers.
std::string svgStackedBars(const std::string& title, const std::vector<std::string>& segments,
                           const std::vector<StackedRow>& rows, const std::string& unit, int width = 640);

}  // namespace saccade
