#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace saccade {

namespace {

const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr int kRightMargin = 60, kRowHeight = 24, kTop = 28, kAxis = 26;

// Room for the longest row label (about 7 px per character at 12 px), within a third of the width.
template <class Rows>
int labelWidth(const Rows& rows, int width) {
    std::size_t longest = 0;
    for (const auto& r : rows) longest = std::max(longest, r.label.size());
    return std::clamp(int(longest) * 7 + 12, 60, width / 3);
}

std::string header(int width, int height, const std::string& title) {
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">"
      << "<title>" << escapeHtml(title) << "</title>"
      << "<text x=\"" << width / 2 << "\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">"
      << escapeHtml(title) << "</text>";
    return s.str();
}

// Round ticks over [0, top]: 1, 2 or 5 times a power of ten, about five of them.
double tickStep(double top) {
    const double raw = top / 4;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    const double r = raw / power;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * power;
}

// A row label cut to the room left of the plot (about 7 px per character), the whole of it in a
// tooltip.
std::string rowLabel(const std::string& label, int room, int x, int y, bool bold) {
    const std::size_t fits = std::size_t(std::max(4, (room - 12) / 7));
    const std::string shown = label.size() <= fits ? label : label.substr(0, fits - 3) + "...";
    std::ostringstream s;
    // The tooltip on a group around the text (a <title> inside <text> is drawn by some renderers).
    s << "<g><title>" << escapeHtml(label) << "</title><text x=\"" << x << "\" y=\"" << y << "\" text-anchor=\"end\""
      << (bold ? " font-weight=\"bold\"" : "") << ">" << escapeHtml(shown) << "</text></g>";
    return s.str();
}

}  // namespace

std::string fixedNumber(double v, int decimals) {
    if (!std::isfinite(v)) return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string escapeHtml(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string svgBars(const std::string& title, const std::vector<BarRow>& rows, int width,
                    const std::string& highlightColour) {
    const int kLeft = labelWidth(rows, width);
    const int plot = width - kLeft - kRightMargin;
    const int height = kTop + int(rows.size()) * kRowHeight + kAxis;
    std::ostringstream s;
    s << header(width, height, title);
    const int bottom = kTop + int(rows.size()) * kRowHeight;
    for (int t = 0; t <= 4; ++t) {
        const double x = kLeft + plot * t / 4.0;
        s << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << bottom
          << "\" stroke=\"#ddd\"/><text x=\"" << x << "\" y=\"" << bottom + 16 << "\" text-anchor=\"middle\">"
          << fixedNumber(t / 4.0, 2) << "</text>";
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        const int y = kTop + int(i) * kRowHeight;
        const double v = std::clamp(std::isfinite(r.value) ? r.value : 0.0, 0.0, 1.0);
        s << rowLabel(r.label, kLeft, kLeft - 6, y + 16, r.highlight)
          << "<rect x=\"" << kLeft << "\" y=\"" << y + 4 << "\" width=\"" << fixedNumber(plot * v, 1)
          << "\" height=\"" << kRowHeight - 8 << "\" fill=\"" << escapeHtml(r.highlight ? highlightColour : "#1f77b4")
          << "\"/>";
        if (r.low >= 0 && r.high >= r.low) {
            const double x0 = kLeft + plot * std::clamp(r.low, 0.0, 1.0), x1 = kLeft + plot * std::clamp(r.high, 0.0, 1.0);
            const int cy = y + kRowHeight / 2;
            s << "<path d=\"M" << fixedNumber(x0, 1) << " " << cy << "H" << fixedNumber(x1, 1) << "M" << fixedNumber(x0, 1) << " "
              << cy - 5 << "V" << cy + 5 << "M" << fixedNumber(x1, 1) << " " << cy - 5 << "V" << cy + 5
              << "\" stroke=\"#222\" stroke-width=\"1.5\" fill=\"none\"/>";
        }
        s << "<text x=\"" << kLeft + plot + 6 << "\" y=\"" << y + 16 << "\">" << fixedNumber(100 * v, 1) << "%</text>";
    }
    s << "</svg>";
    return s.str();
}

std::string svgLines(const std::string& title, const std::string& xTitle, const std::string& yTitle,
                     const std::vector<LineSeries>& series, double xMax, int width, int height) {
    const int left = 56, right = 16, top = kTop, legend = 22 * int((series.size() + 1) / 2);
    const int bottom = height - 40 - legend;
    const double plotW = width - left - right, plotH = bottom - top;
    if (!(xMax > 0)) xMax = 1;
    const auto px = [&](double x) { return left + plotW * std::clamp(x / xMax, 0.0, 1.0); };
    const auto py = [&](double y) { return bottom - plotH * std::clamp(y, 0.0, 1.0); };
    std::ostringstream s;
    s << header(width, height, title);
    const double xStep = tickStep(xMax);
    for (double t = 0; t <= xMax + 1e-9; t += xStep)
        s << "<line x1=\"" << fixedNumber(px(t), 1) << "\" y1=\"" << top << "\" x2=\"" << fixedNumber(px(t), 1) << "\" y2=\""
          << bottom << "\" stroke=\"#ddd\"/><text x=\"" << fixedNumber(px(t), 1) << "\" y=\"" << bottom + 15
          << "\" text-anchor=\"middle\">" << fixedNumber(t, xStep < 1 ? 2 : 0) << "</text>";
    for (int t = 0; t <= 4; ++t)
        s << "<line x1=\"" << left << "\" y1=\"" << fixedNumber(py(t / 4.0), 1) << "\" x2=\"" << left + plotW << "\" y2=\""
          << fixedNumber(py(t / 4.0), 1) << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\""
          << fixedNumber(py(t / 4.0) + 4, 1) << "\" text-anchor=\"end\">" << fixedNumber(t / 4.0, 2) << "</text>";
    s << "<text x=\"" << left + plotW / 2 << "\" y=\"" << bottom + 32 << "\" text-anchor=\"middle\">"
      << escapeHtml(xTitle) << "</text><text transform=\"translate(14 " << (top + bottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << escapeHtml(yTitle) << "</text>";
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& l = series[i];
        const std::string colour = l.colour.empty() ? kPalette[i % 10] : l.colour;
        std::ostringstream d;
        for (std::size_t k = 0; k < l.points.size(); ++k)
            d << (k ? "L" : "M") << fixedNumber(px(l.points[k].first), 1) << " " << fixedNumber(py(l.points[k].second), 1);
        s << "<path d=\"" << d.str() << "\" fill=\"none\" stroke=\"" << escapeHtml(colour) << "\" stroke-width=\"2\""
          << (l.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>";
        for (const auto& [x, y] : l.points)
            s << "<circle cx=\"" << fixedNumber(px(x), 1) << "\" cy=\"" << fixedNumber(py(y), 1) << "\" r=\"3\" fill=\""
              << escapeHtml(colour) << "\"/>";
        const int lx = left + int(i % 2) * int(plotW / 2), ly = bottom + 48 + int(i / 2) * 22;
        s << "<line x1=\"" << lx << "\" y1=\"" << ly - 4 << "\" x2=\"" << lx + 24 << "\" y2=\"" << ly - 4
          << "\" stroke=\"" << escapeHtml(colour) << "\" stroke-width=\"2\""
          << (l.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/><text x=\"" << lx + 30 << "\" y=\"" << ly << "\">"
          << escapeHtml(l.name) << "</text>";
    }
    s << "</svg>";
    return s.str();
}

std::string svgStackedBars(const std::string& title, const std::vector<std::string>& segments,
                           const std::vector<StackedRow>& rows, const std::string& unit, int width) {
    double top = 0;
    for (const auto& r : rows) {
        double total = 0;
        for (double v : r.values) total += std::max(0.0, std::isfinite(v) ? v : 0.0);
        top = std::max(top, total);
    }
    if (!(top > 0)) top = 1;
    const double step = tickStep(top);
    top = std::ceil(top / step - 1e-9) * step;
    const int kLeft = labelWidth(rows, width);
    const int plot = width - kLeft - kRightMargin;
    const int legendRows = int((segments.size() + 3) / 4);
    const int bottom = kTop + int(rows.size()) * kRowHeight;
    const int height = bottom + kAxis + 22 * legendRows + 16;
    std::ostringstream s;
    s << header(width, height, title);
    for (double t = 0; t <= top + 1e-9; t += step) {
        const double x = kLeft + plot * t / top;
        s << "<line x1=\"" << fixedNumber(x, 1) << "\" y1=\"" << kTop << "\" x2=\"" << fixedNumber(x, 1) << "\" y2=\"" << bottom
          << "\" stroke=\"#ddd\"/><text x=\"" << fixedNumber(x, 1) << "\" y=\"" << bottom + 16
          << "\" text-anchor=\"middle\">" << fixedNumber(t, step < 1 ? (step < 0.1 ? 2 : 1) : 0) << "</text>";
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const int y = kTop + int(i) * kRowHeight;
        s << rowLabel(rows[i].label, kLeft, kLeft - 6, y + 16, false);
        double at = 0;
        for (std::size_t k = 0; k < rows[i].values.size() && k < segments.size(); ++k) {
            const double v = std::max(0.0, std::isfinite(rows[i].values[k]) ? rows[i].values[k] : 0.0);
            s << "<rect x=\"" << fixedNumber(kLeft + plot * at / top, 1) << "\" y=\"" << y + 4 << "\" width=\""
              << fixedNumber(plot * v / top, 1) << "\" height=\"" << kRowHeight - 8 << "\" fill=\"" << kPalette[k % 10]
              << "\"><title>" << escapeHtml(segments[k]) << ": " << fixedNumber(v, 3) << " " << escapeHtml(unit)
              << "</title></rect>";
            at += v;
        }
        s << "<text x=\"" << fixedNumber(kLeft + plot * at / top + 4, 1) << "\" y=\"" << y + 16 << "\">" << fixedNumber(at, 2)
          << "</text>";
    }
    s << "<text x=\"" << kLeft + plot / 2 << "\" y=\"" << bottom + 16 + 14 << "\" text-anchor=\"middle\" fill=\"#555\">"
      << escapeHtml(unit) << "</text>";
    for (std::size_t k = 0; k < segments.size(); ++k) {
        const int lx = 10 + int(k % 4) * (width - 20) / 4, ly = bottom + kAxis + 26 + int(k / 4) * 22;
        s << "<rect x=\"" << lx << "\" y=\"" << ly - 10 << "\" width=\"12\" height=\"12\" fill=\"" << kPalette[k % 10]
          << "\"/><text x=\"" << lx + 18 << "\" y=\"" << ly << "\">" << escapeHtml(segments[k]) << "</text>";
    }
    s << "</svg>";
    return s.str();
}

}  // namespace saccade
