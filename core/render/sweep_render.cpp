#include "render/sweep_render.h"

#include <algorithm>

#include <opencv2/imgproc.hpp>

#include "render/trace_render.h"

namespace saccade {

namespace {

const auto kLegendFont = cv::FONT_HERSHEY_SIMPLEX;
const cv::Scalar kLegendText(230, 230, 230), kLine(255, 255, 255), kDashed(150, 150, 150), kUndefined(90, 90, 90);

void dashedLine(cv::Mat& m, cv::Point a, cv::Point b, const cv::Scalar& colour) {
    const int n = std::max(std::abs(b.x - a.x), std::abs(b.y - a.y));
    for (int i = 0; i < n; i += 6) {
        const double t0 = double(i) / n, t1 = std::min(1.0, double(i + 3) / n);
        cv::line(m, a + (b - a) * t0, a + (b - a) * t1, colour, 1);
    }
}

}  // namespace

Image renderSweepMap(const SweepResult& r, SweepMetric metric, int cell) {
    const auto& o = r.probe;
    const int nx = o.dxMax - o.dxMin + 1, ny = o.dyMax - o.dyMin + 1;
    if (cell <= 0) cell = std::clamp(360 / std::max(nx, ny), 4, 40);
    const int left = 46, top = 30, right = 80, bottom = 40;
    const int w = left + nx * cell + right, h = top + std::max(ny * cell, 120) + bottom;
    cv::Mat m(h, w, CV_8UC3, cv::Scalar(38, 40, 44));
    for (const auto& p : r.points) {
        const double v = sweepValue(p, metric);
        cv::Scalar colour = kUndefined;
        if (v >= 0) {
            const auto c = infernoColour(v);
            colour = cv::Scalar(c[0], c[1], c[2]);
        }
        const cv::Point at(left + (p.dx - o.dxMin) * cell, top + (p.dy - o.dyMin) * cell);
        cv::rectangle(m, cv::Rect(at.x, at.y, cell, cell), colour, cv::FILLED);
    }
    // Grid lines: solid where the object's near edge is on a line, dashed where its far edge is.
    const int x0 = left, y0 = top, x1 = left + nx * cell, y1 = top + ny * cell;
    for (int d = o.dxMin; d <= o.dxMax + 1; ++d) {
        const int x = left + (d - o.dxMin) * cell;
        if (edgeOnGridLine(d, o.cellSize)) cv::line(m, {x, y0}, {x, y1}, kLine, 1);
        if (edgeOnGridLine(d + o.objectSize, o.cellSize)) dashedLine(m, {x, y0}, {x, y1}, kDashed);
    }
    if (ny > 1)
        for (int d = o.dyMin; d <= o.dyMax + 1; ++d) {
            const int y = top + (d - o.dyMin) * cell;
            if (edgeOnGridLine(d, o.cellSize)) cv::line(m, {x0, y}, {x1, y}, kLine, 1);
            if (edgeOnGridLine(d + o.objectSize, o.cellSize)) dashedLine(m, {x0, y}, {x1, y}, kDashed);
        }
    // Ticks every few offsets, and the axis names.
    const int step = std::max(1, (nx + 7) / 8);
    for (int d = o.dxMin; d <= o.dxMax; d += step)
        cv::putText(m, std::to_string(d), {left + (d - o.dxMin) * cell, y1 + 14}, kLegendFont, 0.35, kLegendText, 1, cv::LINE_AA);
    for (int d = o.dyMin; d <= o.dyMax; d += std::max(1, (ny + 7) / 8))
        cv::putText(m, std::to_string(d), {6, top + (d - o.dyMin) * cell + std::min(cell, 12)}, kLegendFont, 0.35, kLegendText, 1, cv::LINE_AA);
    cv::putText(m, "dx (px from the grid line)", {left, y1 + 32}, kLegendFont, 0.4, kLegendText, 1, cv::LINE_AA);
    cv::putText(m, sweepMetricName(metric) + ", object " + std::to_string(o.objectSize) + " px, cell " +
                       std::to_string(o.cellSize) + " px",
                {left, 19}, kLegendFont, 0.45, kLegendText, 1, cv::LINE_AA);
    // Colour bar.
    const int barX = x1 + 24, barH = std::max(ny * cell, 120);
    for (int y = 0; y < barH; ++y) {
        const auto c = infernoColour(1.0 - double(y) / (barH - 1));
        cv::line(m, {barX, top + y}, {barX + 12, top + y}, cv::Scalar(c[0], c[1], c[2]), 1);
    }
    cv::putText(m, "1", {barX + 16, top + 8}, kLegendFont, 0.35, kLegendText, 1, cv::LINE_AA);
    cv::putText(m, "0", {barX + 16, top + barH}, kLegendFont, 0.35, kLegendText, 1, cv::LINE_AA);
    Image out = Image::zeros(w, h, 3);
    std::copy(m.datastart, m.dataend, out.pixels.begin());
    return out;
}

}  // namespace saccade
