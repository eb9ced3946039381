#include "render/alignment_render.h"

#include <algorithm>
#include <cstdio>

#include <opencv2/imgproc.hpp>

#include "render/figure_canvas.h"
#include "render/trace_render.h"

namespace saccade {

namespace {

constexpr int kAlignFont = cv::FONT_HERSHEY_SIMPLEX;

/// Where everything sits; shared by the PNG and the SVG.
struct Layout {
    bool upright;  ///< column labels of one or two characters stand upright; longer ones are turned
    int cell, labelW, headerH, barsH, captionH, width, height, rows, cols, scaleW;
    int x0() const { return labelW; }
    int y0() const { return headerH; }
    /// The colour scale: a bar right of the matrix, weight 1 at the top and 0 at the bottom.
    int scaleX() const { return labelW + cols * cell + cell / 2; }
    int scaleBarW() const { return std::max(8, cell / 2); }
};

double fontScale(int cell) { return std::clamp(cell / 55.0, 0.3, 1.2); }

int textWidth(const std::string& s, int cell) {
    int base = 0;
    return cv::getTextSize(s, kAlignFont, fontScale(cell), 1, &base).width;
}

Layout layoutOf(const SeqTranslation& t, const AlignmentRenderOptions& o) {
    Layout l{};
    l.cell = std::clamp(o.cell, 8, 96);
    l.rows = int(t.tokens.size());
    l.cols = int(t.source.size());
    int rowLabel = 0, colLabel = 0;
    l.upright = true;
    for (const auto& s : t.tokens) rowLabel = std::max(rowLabel, textWidth(s, l.cell));
    for (const auto& s : t.source) {
        colLabel = std::max(colLabel, textWidth(s, l.cell));
        l.upright = l.upright && s.size() <= 2;
    }
    l.labelW = rowLabel + 12;
    l.headerH = l.upright ? l.cell + 4 : std::max(l.cell, colLabel + 10);
    l.barsH = o.highlight >= 0 ? 3 * l.cell : 0;
    l.captionH = o.caption.empty() ? 0 : l.cell + 8;
    l.scaleW = l.cell / 2 + std::max(8, l.cell / 2) + textWidth("0.5", l.cell) + 10;
    l.width = std::max(l.labelW + l.cols * l.cell + l.scaleW + 8, o.caption.empty() ? 0 : textWidth(o.caption, l.cell) + 16);
    l.height = l.headerH + l.rows * l.cell + l.barsH + l.captionH + 8;
    return l;
}

/// Row state against the task's answer: 1 right, -1 wrong, 0 no answer known.
int rowVerdict(const SeqTranslation& t, int row) {
    if (!t.hasReference) return 0;
    const auto& ref = t.reference.target;
    const std::string expected = std::size_t(row) < ref.size() ? ref[size_t(row)] : std::size_t(row) == ref.size() ? "</s>" : "";
    return t.tokens[size_t(row)] == expected ? 1 : -1;
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

const cv::Scalar kAlignText(30, 30, 30), kRight(20, 140, 40), kWrong(200, 30, 30), kGold(0, 200, 255), kCentre(60, 220, 90);

void drawDashedRect(cv::Mat& m, cv::Rect r, cv::Scalar c) {
    const int dash = std::max(2, r.width / 5);
    for (int x = r.x; x < r.x + r.width; x += 2 * dash) {
        cv::line(m, {x, r.y}, {std::min(x + dash, r.x + r.width - 1), r.y}, c, 1);
        cv::line(m, {x, r.y + r.height - 1}, {std::min(x + dash, r.x + r.width - 1), r.y + r.height - 1}, c, 1);
    }
    for (int y = r.y; y < r.y + r.height; y += 2 * dash) {
        cv::line(m, {r.x, y}, {r.x, std::min(y + dash, r.y + r.height - 1)}, c, 1);
        cv::line(m, {r.x + r.width - 1, y}, {r.x + r.width - 1, std::min(y + dash, r.y + r.height - 1)}, c, 1);
    }
}

// The colour scale beside the matrix: inferno from weight 0 (bottom) to 1 (top), with 0, 0.5, 1.
void drawColourScale(cv::Mat& m, const Layout& l, double fs, int textH) {
    const int top = l.y0(), height = std::max(1, l.rows * l.cell), x = l.scaleX(), w = l.scaleBarW();
    for (int y = 0; y < height; ++y) {
        const auto rgb = infernoColour(1.0 - double(y) / std::max(1, height - 1));
        cv::line(m, {x, top + y}, {x + w - 1, top + y}, cv::Scalar(rgb[0], rgb[1], rgb[2]), 1);
    }
    cv::rectangle(m, cv::Rect(x, top, w, height), kAlignText, 1);
    for (const auto& [label, at] : {std::pair{"1", 0.0}, {"0.5", 0.5}, {"0", 1.0}})
        cv::putText(m, label, {x + w + 3, top + int(at * (height - 1)) + textH / 2}, kAlignFont, fs * 0.85, kAlignText, 1,
                    cv::LINE_AA);
}

Image toImage(const cv::Mat& m) {
    Image img = Image::zeros(m.cols, m.rows, 3);
    for (int y = 0; y < m.rows; ++y) std::copy_n(m.ptr<std::uint8_t>(y), m.cols * 3, img.pixels.begin() + std::ptrdiff_t(y) * m.cols * 3);
    return img;
}

}  // namespace

int alignmentRowAt(const SeqTranslation& t, const AlignmentRenderOptions& o, int x, int y) {
    const auto l = layoutOf(t, o);
    if (y < l.y0() || y >= l.y0() + l.rows * l.cell || x < 0 || x >= l.x0() + l.cols * l.cell) return -1;
    return (y - l.y0()) / l.cell;
}

std::string alignmentCaption(const SeqTranslation& t) {
    std::string c = "rule " + t.rule + ": " + t.output;
    if (t.hasReference) c += t.correct() ? "  (correct)" : "  (wrong)";
    return c;
}

Image renderAlignment(const SeqTranslation& t, const AlignmentRenderOptions& o) {
    const auto l = layoutOf(t, o);
    cv::Mat m(l.height, l.width, CV_8UC3, cv::Scalar(255, 255, 255));
    const double fs = fontScale(l.cell);
    int base = 0;
    const int textH = cv::getTextSize("Ag", kAlignFont, fs, 1, &base).height;
    // Column labels, vertical (drawn flat, then turned), bottom-aligned to the matrix.
    for (int c = 0; c < l.cols; ++c) {
        const auto& s = t.source[size_t(c)];
        if (l.upright) {
            const std::string shown = s == " " ? "_" : s;
            cv::putText(m, shown, {l.x0() + c * l.cell + (l.cell - textWidth(shown, l.cell)) / 2, l.y0() - 6}, kAlignFont, fs,
                        s == " " ? cv::Scalar(170, 170, 170) : kAlignText, 1, cv::LINE_AA);
            continue;
        }
        const int w = std::max(1, textWidth(s, l.cell) + 4);
        cv::Mat flat(l.cell, w, CV_8UC3, cv::Scalar(255, 255, 255));
        cv::putText(flat, s == " " ? "_" : s, {2, (l.cell + textH) / 2}, kAlignFont, fs, s == " " ? cv::Scalar(170, 170, 170) : kAlignText, 1, cv::LINE_AA);
        cv::Mat turned;
        cv::rotate(flat, turned, cv::ROTATE_90_COUNTERCLOCKWISE);
        const int x = l.x0() + c * l.cell, y = l.y0() - turned.rows - 3;
        if (y >= 0) turned.copyTo(m(cv::Rect(x, y, turned.cols, turned.rows)));
    }
    for (int r = 0; r < l.rows; ++r) {
        const int v = rowVerdict(t, r);
        const auto colour = v > 0 ? kRight : v < 0 ? kWrong : kAlignText;
        const auto& s = t.tokens[size_t(r)];
        cv::putText(m, s, {l.labelW - 6 - textWidth(s, l.cell), l.y0() + r * l.cell + (l.cell + textH) / 2}, kAlignFont, fs, colour, 1,
                    cv::LINE_AA);
        for (int c = 0; c < l.cols; ++c) {
            const auto rgb = infernoColour(std::clamp(t.alignment[size_t(r)][size_t(c)], 0.0, 1.0));
            const cv::Rect cellRect(l.x0() + c * l.cell, l.y0() + r * l.cell, l.cell, l.cell);
            cv::rectangle(m, cellRect, cv::Scalar(rgb[0], rgb[1], rgb[2]), cv::FILLED);
            if (t.hasReference && std::size_t(r) < t.reference.possible.size()) {
                const cv::Rect inner(cellRect.x + 1, cellRect.y + 1, l.cell - 2, l.cell - 2);
                if (contains(t.reference.sure[size_t(r)], c)) cv::rectangle(m, inner, kGold, 2);
                else if (contains(t.reference.possible[size_t(r)], c)) drawDashedRect(m, inner, kGold);
            }
            if (t.chosen[size_t(r)] == c)
                cv::circle(m, {cellRect.x + l.cell / 2, cellRect.y + l.cell / 2}, std::max(2, l.cell / 6), cv::Scalar(255, 255, 255),
                           cv::FILLED, cv::LINE_AA);
        }
        if (!t.centre.empty()) {
            const int x = l.x0() + int((t.centre[size_t(r)] + 0.5) * l.cell);
            cv::line(m, {x, l.y0() + r * l.cell + 1}, {x, l.y0() + r * l.cell + l.cell / 3}, kCentre, 2);
        }
    }
    drawColourScale(m, l, fs, textH);
    if (o.highlight >= 0 && o.highlight < l.rows) {
        cv::rectangle(m, cv::Rect(l.x0() - 2, l.y0() + o.highlight * l.cell - 2, l.cols * l.cell + 4, l.cell + 4), cv::Scalar(0, 120, 255), 2);
        const int yBase = l.y0() + l.rows * l.cell + l.barsH - 4;
        for (int c = 0; c < l.cols; ++c) {
            const double w = t.alignment[size_t(o.highlight)][size_t(c)];
            const int h = int(w * (l.barsH - 10));
            const auto rgb = infernoColour(std::clamp(w, 0.0, 1.0));
            cv::rectangle(m, cv::Rect(l.x0() + c * l.cell + 2, yBase - h, l.cell - 4, std::max(1, h)), cv::Scalar(rgb[0], rgb[1], rgb[2]), cv::FILLED);
        }
        cv::line(m, {l.x0(), yBase}, {l.x0() + l.cols * l.cell, yBase}, kAlignText, 1);
        // Counted from 1, as every page counts steps.
        const std::string unit = t.embedding.empty() ? "step " : "piece ";  // a text encoder's rows are its pieces
        const std::string label = unit + std::to_string(o.highlight + 1) + ": '" + t.tokens[size_t(o.highlight)] + "'";
        cv::putText(m, label, {4, yBase - 4}, kAlignFont, fs * 0.9, kAlignText, 1, cv::LINE_AA);
    }
    if (!o.caption.empty())
        cv::putText(m, o.caption, {8, l.height - 8 - (l.captionH - textH) / 2}, kAlignFont, fs, kAlignText, 1, cv::LINE_AA);
    return toImage(m);
}

Image renderHeadView(const SeqTranslation& t, const AlignmentRenderOptions& o) {
    // As readers know it from bertviz: output tokens left, input tokens right, a line between two
    // tokens as strong (thick, saturated) as its weight. Every step's lines are drawn faintly and
    // the current step's at full strength; the type is larger than the matrix's, so the figure
    // reads at the page's size.
    const int cell = std::clamp(o.cell, 8, 96);
    const double fs = fontScale(cell) * 1.6;
    auto width = [&](const std::string& s) {
        int base = 0;
        return cv::getTextSize(s, kAlignFont, fs, 1, &base).width;
    };
    int left = 0, right = 0;
    for (const auto& s : t.tokens) left = std::max(left, width(s));
    for (const auto& s : t.source) right = std::max(right, width(s == " " ? "_" : s));
    const int gap = std::max(200, 12 * cell), legendH = cell + 10;
    const int rows = int(t.tokens.size()), cols = int(t.source.size());
    const int height = std::max(rows, cols) * cell + 16 + legendH + (o.caption.empty() ? 0 : cell + 8);
    const int figureWidth = std::max(left + gap + right + 32, o.caption.empty() ? 0 : textWidth(o.caption, cell) + 16);
    cv::Mat m(height, std::max(figureWidth, 3 * gap / 2 + 40), CV_8UC3, cv::Scalar(255, 255, 255));
    int base = 0;
    const int textH = cv::getTextSize("Ag", kAlignFont, fs, 1, &base).height;
    const int xl = left + 12, xr = left + 12 + gap;
    auto yOf = [&](int i) { return 8 + i * cell + cell / 2; };
    // A weight's line: white to blue (30, 120, 240) and 1 to 5 px; `strength` fades other steps.
    auto drawLine = [&](cv::Point a, cv::Point b, double w, double strength) {
        const double k = std::clamp(w, 0.0, 1.0) * strength;
        const cv::Scalar colour(255 - k * 225, 255 - k * 135, 255 - k * 15);
        cv::line(m, a, b, colour, 1 + int(std::lround(4 * k)), cv::LINE_AA);
    };
    struct Line {
        double w, strength;
        int r, c;
    };
    std::vector<Line> lines;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const double w = t.alignment[size_t(r)][size_t(c)];
            const bool current = o.highlight < 0 || o.highlight == r;
            if (w >= (current ? 0.02 : 0.1)) lines.push_back({w, current ? 1.0 : 0.3, r, c});
        }
    std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.w * a.strength < b.w * b.strength; });
    for (const auto& l : lines) drawLine({xl + 4, yOf(l.r)}, {xr - 4, yOf(l.c)}, l.w, l.strength);
    for (int r = 0; r < rows; ++r) {
        const int v = rowVerdict(t, r);
        const auto colour = v > 0 ? kRight : v < 0 ? kWrong : kAlignText;
        const bool current = o.highlight == r;
        if (current) cv::rectangle(m, cv::Rect(xl - 8 - left, yOf(r) - cell / 2, left + 8, cell), cv::Scalar(215, 235, 255), cv::FILLED);
        cv::putText(m, t.tokens[size_t(r)], {xl - 4 - width(t.tokens[size_t(r)]), yOf(r) + textH / 2}, kAlignFont, fs,
                    current ? cv::Scalar(0, 90, 220) : colour, current ? 2 : 1, cv::LINE_AA);
    }
    for (int c = 0; c < cols; ++c) {
        const auto& s = t.source[size_t(c)];
        cv::putText(m, s == " " ? "_" : s, {xr + 4, yOf(c) + textH / 2}, kAlignFont, fs, s == " " ? cv::Scalar(170, 170, 170) : kAlignText, 1,
                    cv::LINE_AA);
    }
    // The legend: what a line's strength means.
    const int ly = 8 + std::max(rows, cols) * cell + 8 + legendH / 2;
    int lx = 8;
    cv::putText(m, "weight", {lx, ly + textH / 2}, kAlignFont, fs * 0.8, kAlignText, 1, cv::LINE_AA);
    lx += width("weight") + 8;
    for (double w : {0.1, 0.5, 1.0}) {
        drawLine({lx, ly}, {lx + gap / 6, ly}, w, 1.0);
        char label[8];
        std::snprintf(label, sizeof label, "%g", w);
        cv::putText(m, label, {lx + gap / 6 + 4, ly + textH / 2}, kAlignFont, fs * 0.8, kAlignText, 1, cv::LINE_AA);
        lx += gap / 6 + 12 + width(label);
    }
    if (!o.caption.empty()) cv::putText(m, o.caption, {8, height - 8}, kAlignFont, fontScale(cell), kAlignText, 1, cv::LINE_AA);
    return toImage(m);
}

std::vector<Image> renderAlignmentFrames(const SeqTranslation& t, const AlignmentRenderOptions& o) {
    std::vector<Image> frames;
    for (int r = 0; r < int(t.tokens.size()); ++r) {
        auto each = o;
        each.highlight = r;
        frames.push_back(renderAlignment(t, each));
    }
    return frames;
}

namespace {
std::string hex(const std::array<std::uint8_t, 3>& c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c[0], c[1], c[2]);
    return buf;
}
}  // namespace

namespace {
// The PNG's colour scale as SVG: a vertical gradient of inferno stops, labelled 1, 0.5 and 0.
std::string colourScaleSvg(const Layout& l, int fontPx) {
    const int top = l.y0(), height = std::max(1, l.rows * l.cell), x = l.scaleX(), w = l.scaleBarW();
    std::string s = "<defs><linearGradient id=\"weightScale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
    for (int k = 0; k <= 10; ++k)
        s += "<stop offset=\"" + std::to_string(k * 10) + "%\" stop-color=\"" + hex(infernoColour(k / 10.0)) + "\"/>";
    s += "</linearGradient></defs>\n<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(top) + "\" width=\"" +
         std::to_string(w) + "\" height=\"" + std::to_string(height) + "\" fill=\"url(#weightScale)\" stroke=\"#1e1e1e\"/>\n";
    for (const auto& [label, at] : {std::pair{"1", 0.0}, {"0.5", 0.5}, {"0", 1.0}})
        s += "<text x=\"" + std::to_string(x + w + 3) + "\" y=\"" + std::to_string(top + int(at * (height - 1)) + fontPx / 3) +
             "\">" + label + "</text>\n";
    return s;
}
}  // namespace

std::string alignmentSvg(const SeqTranslation& t, const AlignmentRenderOptions& o) {
    const auto l = layoutOf(t, o);
    const int fontPx = std::max(8, int(l.cell * 0.6));
    std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(l.width) + "\" height=\"" +
                    std::to_string(l.height) + "\" font-family=\"sans-serif\" font-size=\"" + std::to_string(fontPx) + "\">\n";
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    for (int c = 0; c < l.cols; ++c) {
        const int x = l.x0() + c * l.cell + l.cell / 2 + (l.upright ? 0 : fontPx / 3), y = l.y0() - 4;
        s += "<text transform=\"translate(" + std::to_string(x) + "," + std::to_string(y) + ")" +
             (l.upright ? "\" text-anchor=\"middle\">" : " rotate(-90)\">") +
             escapeXml(t.source[size_t(c)] == " " ? "_" : t.source[size_t(c)]) + "</text>\n";
    }
    for (int r = 0; r < l.rows; ++r) {
        const int v = rowVerdict(t, r);
        const std::string fill = v > 0 ? "#148c28" : v < 0 ? "#c81e1e" : "#1e1e1e";
        s += "<text x=\"" + std::to_string(l.labelW - 6) + "\" y=\"" + std::to_string(l.y0() + r * l.cell + l.cell / 2 + fontPx / 3) +
             "\" text-anchor=\"end\" fill=\"" + fill + "\">" + escapeXml(t.tokens[size_t(r)]) + "</text>\n";
        for (int c = 0; c < l.cols; ++c) {
            const double w = t.alignment[size_t(r)][size_t(c)];
            const int x = l.x0() + c * l.cell, y = l.y0() + r * l.cell;
            char weight[16];
            std::snprintf(weight, sizeof weight, "%.4f", w);
            s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(l.cell) +
                 "\" height=\"" + std::to_string(l.cell) + "\" fill=\"" + hex(infernoColour(std::clamp(w, 0.0, 1.0))) +
                 "\"><title>" + escapeXml(t.tokens[size_t(r)]) + " &lt;- " + escapeXml(t.source[size_t(c)]) + ": " + weight +
                 "</title></rect>\n";
            if (t.hasReference && std::size_t(r) < t.reference.possible.size()) {
                const bool sure = contains(t.reference.sure[size_t(r)], c);
                if (sure || contains(t.reference.possible[size_t(r)], c))
                    s += "<rect x=\"" + std::to_string(x + 1) + "\" y=\"" + std::to_string(y + 1) + "\" width=\"" +
                         std::to_string(l.cell - 2) + "\" height=\"" + std::to_string(l.cell - 2) +
                         "\" fill=\"none\" stroke=\"#00c8ff\" stroke-width=\"" + (sure ? "2\"" : "1\" stroke-dasharray=\"3,3\"") + "/>\n";
            }
            if (t.chosen[size_t(r)] == c)
                s += "<circle cx=\"" + std::to_string(x + l.cell / 2) + "\" cy=\"" + std::to_string(y + l.cell / 2) + "\" r=\"" +
                     std::to_string(std::max(2, l.cell / 6)) + "\" fill=\"white\"/>\n";
        }
    }
    s += colourScaleSvg(l, fontPx);
    if (!o.caption.empty())
        s += "<text x=\"8\" y=\"" + std::to_string(l.height - 10) + "\">" + escapeXml(o.caption) + "</text>\n";
    return s + "</svg>\n";
}

}  // namespace saccade
