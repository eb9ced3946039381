#include "render/length_render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "data/image_io.h"


namespace saccade {
namespace {

const Rgb kInk{30, 30, 30}, kGrid{225, 225, 225}, kAxisColour{120, 120, 120};
const Rgb kVariant{31, 119, 180}, kFull{214, 39, 40}, kPeak{172, 203, 230};

struct Panel {
    double x, y, w, h;
};

std::string fmt(const char* format, double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, v);
    return buffer;
}

std::string thousands(std::int64_t v) {
    auto s = std::to_string(v);
    for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(std::size_t(i), ",");
    return s;
}

/// Dark blue at 1, white at 0.
Rgb patternColour(double t) {
    t = std::clamp(t, 0.0, 1.0);
    return {std::uint8_t(255 - t * (255 - 8)), std::uint8_t(255 - t * (255 - 48)), std::uint8_t(255 - t * (255 - 107))};
}

void drawPattern(FigureCanvas& c, const LengthView& v, const Panel& b) {
    const double side = std::min(b.w, b.h);
    const double cw = side / v.patternCols, ch = side / v.patternRows;
    for (int r = 0; r < v.patternRows; ++r)
        for (int col = 0; col < v.patternCols; ++col) {
            const double d = v.pattern[std::size_t(r) * v.patternCols + col];
            if (d > 0) c.fill(b.x + col * cw, b.y + r * ch, cw + 0.5, ch + 0.5, patternColour(d));
        }
    c.outline(b.x, b.y, side, side, kAxisColour);
    c.text(b.x, b.y + side + 16, "0", 11, kInk);
    c.text(b.x + side, b.y + side + 16, thousands(v.request.n), 11, kInk, TextAnchor::End);
    c.text(b.x + side / 2, b.y + side + 30, "key position", 12, kInk, TextAnchor::Middle);
    // The colour scale, where the figure leaves room under the square (the GUI's tall view).
    const double legendY = b.y + side + 48;
    if (legendY + 24 <= c.height()) {
        const int steps = 10;
        for (int i = 0; i < steps; ++i)
            c.fill(b.x + side * 0.25 + i * side * 0.05, legendY, side * 0.05 + 0.5, 10, patternColour((i + 0.5) / steps));
        c.outline(b.x + side * 0.25, legendY, side * 0.5, 10, kAxisColour);
        c.text(b.x + side * 0.25 - 4, legendY + 9, "none", 10, kInk, TextAnchor::End);
        c.text(b.x + side * 0.75 + 4, legendY + 9, "all", 10, kInk);
        c.fittedText(b.x + side / 2, legendY + 24, "share of a cell's (query, key) pairs attended", 10, side, kInk,
                     TextAnchor::Middle);
    }
    c.text(b.x - 6, b.y + 12, "0", 11, kInk, TextAnchor::End);
    c.text(b.x - 6, b.y + side, thousands(v.request.n), 11, kInk, TextAnchor::End);
    c.fittedText(b.x + side / 2, b.y - 8,
                 "keys each query attends to (dark): " + fmt("%.0f", v.keysPerQuery) + " (" +
                     fmt("%.2g", 100.0 * v.keysPerQuery / double(v.request.n)) + "%)",
                 12, side + 40, kInk, TextAnchor::Middle);
}

void drawRowError(FigureCanvas& c, const LengthView& v, const Panel& b) {
    // Total variation lies in [0, 1]: a fixed axis, so two variants' maps compare by eye.
    c.outline(b.x, b.y, b.w, b.h, kAxisColour);
    for (int i = 1; i < 4; ++i) {
        c.line(b.x, b.y + b.h * i / 4, b.x + b.w, b.y + b.h * i / 4, kGrid);
        c.text(b.x - 4, b.y + b.h * i / 4 + 4, fmt("%.2f", 1.0 - i / 4.0), 10, kInk, TextAnchor::End);
    }
    // One point per pixel column: the mean of its rows as the line (the dashed overall mean is
    // their mean), and their largest, lighter, so a peak stays visible and is not read as typical.
    const auto n = v.rowTv.size();
    const int columns = std::max(1, int(b.w));
    std::vector<std::pair<double, double>> means, peaks;
    for (int x = 0; x < columns && n > 0; ++x) {
        const auto i0 = std::size_t(double(x) * n / columns), i1 = std::max(i0 + 1, std::size_t(double(x + 1) * n / columns));
        double m = 0, sum = 0;
        for (auto i = i0; i < std::min(i1, n); ++i) m = std::max(m, v.rowTv[i]), sum += v.rowTv[i];
        const double mean = sum / double(std::min(i1, n) - i0);
        peaks.emplace_back(b.x + x, b.y + b.h - b.h * std::clamp(m, 0.0, 1.0));
        means.emplace_back(b.x + x, b.y + b.h - b.h * std::clamp(mean, 0.0, 1.0));
    }
    c.polyline(peaks, kPeak, 1.0);
    c.polyline(means, kVariant, 1.4);
    const double rowsPerColumn = double(n) / columns;
    c.fittedText(b.x + b.w / 2, b.y + b.h + 46,
                 rowsPerColumn > 1 ? "line: mean of the " + fmt("%.0f", rowsPerColumn) + " queries per pixel; light: their largest"
                                   : "line: each query's total variation",
                 10, b.w + 40, kInk, TextAnchor::Middle);
    const double meanY = b.y + b.h - b.h * std::clamp(v.meanTv, 0.0, 1.0);
    c.line(b.x, meanY, b.x + b.w, meanY, kFull, 1, true);
    c.text(b.x - 4, b.y + 10, "1", 10, kInk, TextAnchor::End);
    c.text(b.x - 4, b.y + b.h, "0", 10, kInk, TextAnchor::End);
    c.text(b.x + b.w / 2, b.y + b.h + 16, "query position (0 to " + thousands(v.request.n) + ")", 12, kInk, TextAnchor::Middle);
    c.fittedText(b.x + b.w / 2, b.y - 8, "each row's total variation from exact: mean " + fmt("%.3f", v.meanTv), 12,
                 b.w + 40, kInk, TextAnchor::Middle);
    c.fittedText(b.x + b.w / 2, b.y + b.h + 32,
                 "top-1 agreement " + fmt("%.1f", 100 * v.top1Agreement) + "%, output error |o-e|/|e| " +
                     fmt("%.3g", v.meanOutputError),
                 11, b.w + 40, kInk, TextAnchor::Middle);
}

struct LogAxes {
    Panel b;
    double x0, x1, y0, y1;  // log10 ranges
    std::pair<double, double> at(double x, double y) const {
        return {b.x + b.w * (std::log10(x) - x0) / (x1 - x0), b.y + b.h - b.h * (std::log10(y) - y0) / (y1 - y0)};
    }
};

void drawLogPlot(FigureCanvas& c, const LengthView& v, const Panel& b, bool memory) {
    auto value = [&](const LengthCurvePoint& p) -> std::optional<double> {
        if (!memory) return p.ms;
        return p.peakMb;
    };
    double lo = 1e300, hi = 0, nlo = 1e300, nhi = 0;
    for (const auto* curve : {&v.curve, &v.fullCurve})
        for (const auto& p : *curve)
            if (auto y = value(p); y && *y > 0) {
                lo = std::min(lo, *y), hi = std::max(hi, *y);
                nlo = std::min(nlo, double(p.n)), nhi = std::max(nhi, double(p.n));
            }
    c.outline(b.x, b.y, b.w, b.h, kAxisColour);
    const std::string what = memory ? "peak MB" : "forward ms";
    if (hi <= 0) {
        c.text(b.x + b.w / 2, b.y + b.h / 2, what + ": not measured on this device", 11, kInk, TextAnchor::Middle);
        return;
    }
    LogAxes ax{b, std::log10(nlo) - 0.05, std::log10(std::max(nhi, nlo * 2)) + 0.05, std::floor(std::log10(lo)),
               std::ceil(std::log10(hi) + 1e-9)};
    if (ax.y1 <= ax.y0) ax.y1 = ax.y0 + 1;
    for (double e = ax.y0; e <= ax.y1; e += 1) {
        const auto y = ax.at(std::pow(10.0, ax.x0), std::pow(10.0, e)).second;
        c.line(b.x, y, b.x + b.w, y, kGrid);
        c.text(b.x - 4, y + 4, fmt("%g", std::pow(10.0, e)), 10, kInk, TextAnchor::End);
    }
    auto curveOf = [&](const std::vector<LengthCurvePoint>& curve, Rgb colour, bool dashed) {
        std::vector<std::pair<double, double>> pts;
        for (const auto& p : curve)
            if (auto y = value(p); y && *y > 0) {
                pts.push_back(ax.at(double(p.n), *y));
                c.fill(pts.back().first - 2, pts.back().second - 2, 4, 4, colour);
                if (!memory && p.fastestMs > 0 && p.slowestMs > 0) {  // the spread of the timings: fastest to slowest
                    const auto [x, top] = ax.at(double(p.n), p.slowestMs);
                    const double bottom = ax.at(double(p.n), p.fastestMs).second;
                    c.line(x, top, x, bottom, colour, 1);
                    c.line(x - 3, top, x + 3, top, colour, 1);
                    c.line(x - 3, bottom, x + 3, bottom, colour, 1);
                }
            }
        c.polyline(pts, colour, 1.5, dashed);
    };
    if (v.request.variant != AttentionVariant::Full) curveOf(v.fullCurve, kFull, true);
    curveOf(v.curve, kVariant, false);
    c.text(b.x + 6, b.y + 14, what + " (log-log)", 11, kInk);
}

void drawCurves(FigureCanvas& c, const LengthView& v, const Panel& area) {
    // The legend first, over both plots (the slopes are of the time): then the two plots.
    const bool withFull = v.request.variant != AttentionVariant::Full;
    const double legendH = withFull ? 44 : 29;
    const Panel b{area.x, area.y + legendH, area.w, area.h - legendH};
    const auto name = attentionVariantName(v.request.variant);
    auto slope = [](const std::optional<double>& s, const std::string& why) {
        return s ? "time slope " + fmt("%.2f", *s) : "no slope: " + (why.empty() ? std::string("not measured") : why);
    };
    c.fittedText(area.x + area.w / 2, area.y - 8, "cost against length n", 12, area.w, kInk, TextAnchor::Middle);
    double y = area.y + 10;
    c.fittedText(area.x, y, "median of " + std::to_string(v.request.repeats) + " runs; bar: min-max", 10,
                 area.w, kInk);
    y += 15;
    c.line(area.x, y - 4, area.x + 18, y - 4, kVariant, 2);
    c.fittedText(area.x + 22, y, name + ": " + slope(v.slope, v.slopeNote), 11, area.w - 22, kInk);
    if (withFull) {
        y += 15;
        c.line(area.x, y - 4, area.x + 18, y - 4, kFull, 2, true);
        c.fittedText(area.x + 22, y, v.fullCurve.empty() ? "full: does not fit here" : "full: " + slope(v.fullSlope, v.fullSlopeNote),
                     11, area.w - 22, kInk);
    }
    const double gap = 22, h = (b.h - gap) / 2;
    drawLogPlot(c, v, {b.x, b.y, b.w, h}, false);
    drawLogPlot(c, v, {b.x, b.y + h + gap, b.w, h}, true);
    if (!v.curve.empty()) {  // the n axis, shared by both plots, under the lower one
        c.text(b.x, b.y + b.h + 13, thousands(v.curve.front().n), 10, kInk);
        c.text(b.x + b.w / 2, b.y + b.h + 13, "n (log)", 10, kInk, TextAnchor::Middle);
        c.text(b.x + b.w, b.y + b.h + 13, thousands(v.curve.back().n), 10, kInk, TextAnchor::End);
    }
}

}  // namespace

std::string lengthViewTitle(const LengthView& v) {
    const auto& o = v.request.options;
    std::string detail;
    switch (v.request.variant) {
        case AttentionVariant::Local: detail = ", window " + std::to_string(o.window); break;
        case AttentionVariant::BlockSparse:
            detail = ", block " + std::to_string(o.block) + ", summary " + std::to_string(o.summary);
            break;
        case AttentionVariant::TopK: detail = ", k = " + std::to_string(o.topK); break;
        case AttentionVariant::Performer: detail = ", " + std::to_string(o.features) + " features"; break;
        case AttentionVariant::MemoryEfficient: detail = ", tile " + std::to_string(o.tile); break;
        default: break;
    }
    return attentionVariantName(v.request.variant) + detail + " at n = " + thousands(v.request.n) + ", " +
           std::to_string(v.request.heads) + " head(s) of width " + std::to_string(v.request.dim) + ", " +
           (v.request.positional ? "positional" : "random") + " inputs, seed " + std::to_string(v.request.seed) + " (" +
           v.device + ")";
}

Result<std::string> lengthViewFormat(const std::string& path) {
    const auto dot = path.find_last_of('.');
    std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (ext == "png" || ext == "svg" || ext == "csv" || ext == "json") return ext;
    return Error{"'" + path + "': the length view is saved as .png, .svg, .csv or .json"};
}

std::string lengthViewBytes(const LengthView& view, const std::string& format, int width, int height) {
    if (format == "json") return lengthViewToJson(view) + "\n";
    if (format == "csv") return lengthViewToCsv(view);
    const auto figure = lengthViewFigure(view, width, height);
    if (format == "svg") return figure.toSvg(lengthViewTitle(view));
    auto png = encodeImagePng(figure.toImage());
    return png ? *png : std::string();
}

FigureCanvas lengthViewFigure(const LengthView& v, int width, int height) {
    width = std::max(width, 720);
    height = std::max(height, 300);
    FigureCanvas c(width, height);
    c.fittedText(width / 2.0, 20, lengthViewTitle(v), 14, width - 16, kInk, TextAnchor::Middle);
    const double top = 56, bottom = 48, left = 56;
    const double plotH = height - top - bottom;
    const double side = std::min(plotH, (width - left) * 0.3);
    drawPattern(c, v, {left, top, side, side});
    const double rest = width - (left + side) - 24;
    const double x2 = left + side + 70, w2 = rest * 0.48 - 50;
    drawRowError(c, v, {x2, top, w2, plotH});
    const double x3 = x2 + w2 + 66;
    drawCurves(c, v, {x3, top, width - x3 - 16, plotH});
    return c;
}

}  // namespace saccade
