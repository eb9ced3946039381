#include "render/trace_render.h"

#include <algorithm>
#include <sstream>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "data/image_mat.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kPad = 4;
constexpr int kMinPanelWidth = 200;
constexpr int kLineHeight = 14;
constexpr int kLegendHeight = 18;
constexpr double kFontScale = 0.4;
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

const cv::Scalar kBackground(32, 32, 32);
const cv::Scalar kText(235, 235, 235);
const cv::Scalar kChosen(kChosenColour[0], kChosenColour[1], kChosenColour[2]);
const cv::Scalar kTruth(60, 230, 60);
const cv::Scalar kBlack(0, 0, 0);
const cv::Scalar kWhite(255, 255, 255);
const cv::Scalar kGlimpse[] = {{255, 220, 0}, {255, 140, 0}, {255, 60, 200}, {230, 40, 40}};

// Inferno (matplotlib) sampled at i / 9; linear interpolation between anchors keeps the map's
// monotone rise in lightness.
constexpr std::uint8_t kInferno[10][3] = {
    {0, 0, 4},     {27, 12, 66},   {75, 12, 107}, {120, 28, 109}, {165, 44, 96},
    {207, 68, 70}, {237, 105, 37}, {251, 154, 6}, {247, 208, 60}, {252, 255, 164}};

cv::Scalar toScalar(const std::array<std::uint8_t, 3>& c) { return cv::Scalar(c[0], c[1], c[2]); }

Image fromMat(const cv::Mat& mat) {
    Image out{mat.cols, mat.rows, 3, {}};
    out.pixels.assign(mat.datastart, mat.dataend);
    return out;
}

int textWidth(const std::string& text, double fontScale) {
    int baseline = 0;
    return cv::getTextSize(text, kFont, fontScale, 1, &baseline).width;
}

// Shrinks the font down to 0.3, then cuts the text with "..", so it fits `maxWidth`.
void putTextFit(cv::Mat& m, std::string text, cv::Point at, int maxWidth, const cv::Scalar& colour,
                double fontScale = kFontScale) {
    while (fontScale > 0.3 && textWidth(text, fontScale) > maxWidth) fontScale -= 0.02;
    while (text.size() > 2 && textWidth(text, fontScale) > maxWidth)
        text = text.substr(0, text.size() - 3) + "..";
    cv::putText(m, text, at, kFont, fontScale, colour, 1, cv::LINE_AA);
}

// Text on a small dark box, for labels drawn over the heatmap.
void putLabel(cv::Mat& m, const std::string& text, cv::Point topLeft, const cv::Scalar& colour,
              double fontScale = 0.35) {
    int baseline = 0;
    const cv::Size size = cv::getTextSize(text, kFont, fontScale, 1, &baseline);
    cv::rectangle(m, cv::Rect(topLeft.x, topLeft.y, size.width + 4, size.height + 4), kBlack,
                  cv::FILLED);
    cv::putText(m, text, {topLeft.x + 2, topLeft.y + size.height + 2}, kFont, fontScale, colour, 1,
                cv::LINE_AA);
}

std::string format(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

bool validGrid(const TraceStep& s) {
    return s.grid && s.grid->rows > 0 && s.grid->cols > 0 &&
           s.grid->probs.size() == std::size_t(s.grid->rows) * std::size_t(s.grid->cols);
}

// Cell (r, c) in image-area output pixels: [x0, x1) x [y0, y1).
cv::Rect cellRect(const GridDistribution& g, int cell, int w, int h, int scale) {
    const int r = cell / g.cols, c = cell % g.cols;
    const int x0 = w * c / g.cols * scale, x1 = w * (c + 1) / g.cols * scale;
    const int y0 = h * r / g.rows * scale, y1 = h * (r + 1) / g.rows * scale;
    return cv::Rect(x0, y0, x1 - x0, y1 - y0);
}

struct Mapper {  // trace coordinates (image pixels of the traced image) -> image-area pixels
    double sx = 1, sy = 1;
    cv::Point2d point(double x, double y) const { return {x * sx, y * sy}; }
};

constexpr int kShift = 4;  // sub-pixel bits for OpenCV drawing
cv::Point fixed(cv::Point2d p) {
    return {int(std::lround(p.x * (1 << kShift))), int(std::lround(p.y * (1 << kShift)))};
}

int footerHeight(std::size_t lines) { return lines == 0 ? 0 : int(lines) * 16 + 6; }

void drawFooter(cv::Mat& m, int y, const std::vector<std::string>& lines) {
    for (std::size_t i = 0; i < lines.size(); ++i)
        putTextFit(m, lines[i], {kPad + 2, y + 14 + int(i) * 16}, m.cols - 2 * kPad - 2, kText, 0.4);
}

std::string titleText(const Trace& trace, int step, bool choiceAndRule, bool secondPart) {
    const auto& s = trace.steps[step];
    // A captioner's step is a word: the title names it.
    std::string first = s.token.empty()
                            ? "step " + std::to_string(step + 1) + "/" + std::to_string(trace.steps.size())
                            : std::to_string(step + 1) + "/" + std::to_string(trace.steps.size()) + " \"" + s.token + "\"";
    if (!trace.rule.empty()) first += "  " + trace.rule;
    const bool hasChoice = !s.chosenCells.empty() || s.chosenPoint.has_value();
    const bool hasDistribution = validGrid(s) || (s.gaussian && s.gaussian->stdX > 0 && s.gaussian->stdY > 0);
    // A step without a distribution (the RAM's fixed first glimpse) has no probability or entropy.
    std::string second = !hasDistribution ? std::string("fixed, no policy")
                         : (hasChoice ? format("p(choice)=%.3g", std::exp(s.logProb)) : "soft") +
                               format("  H=%.2f", s.entropy);
    if (choiceAndRule) return first + "  " + second;
    return secondPart ? second : first;
}

void drawHeatmap(cv::Mat& area, const TraceStep& s, const Image& image, const Mapper& map,
                 int scale, double opacity, double& maxValue) {
    const double a = std::clamp(opacity, 0.0, 1.0);
    if (validGrid(s)) {
        const auto& g = *s.grid;
        maxValue = *std::max_element(g.probs.begin(), g.probs.end());
        for (int i = 0; i < g.rows * g.cols; ++i) {
            const double t = maxValue > 0 ? g.probs[i] / maxValue : 0.0;
            cv::Mat roi = area(cellRect(g, i, image.width, image.height, scale));
            const cv::Mat fill(roi.size(), CV_8UC3, toScalar(infernoColour(t)));
            cv::addWeighted(roi, 1 - a, fill, a, 0, roi);
        }
    } else if (s.gaussian && s.gaussian->stdX > 0 && s.gaussian->stdY > 0) {
        const auto& p = *s.gaussian;
        cv::Mat rel(area.size(), CV_64F);
        for (int y = 0; y < area.rows; ++y) {
            for (int x = 0; x < area.cols; ++x) {
                const double dx = ((x + 0.5) / map.sx - p.meanX) / p.stdX;
                const double dy = ((y + 0.5) / map.sy - p.meanY) / p.stdY;
                rel.at<double>(y, x) = std::exp(-0.5 * (dx * dx + dy * dy));
            }
        }
        double relMax = 0;
        cv::minMaxLoc(rel, nullptr, &relMax);
        maxValue = relMax / (2 * kPi * p.stdX * p.stdY);  // density per square image pixel
        for (int y = 0; y < area.rows; ++y) {
            for (int x = 0; x < area.cols; ++x) {
                const auto c = infernoColour(relMax > 0 ? rel.at<double>(y, x) / relMax : 0.0);
                auto& px = area.at<cv::Vec3b>(y, x);
                for (int k = 0; k < 3; ++k)
                    px[k] = cv::saturate_cast<uchar>(px[k] * (1 - a) + c[k] * a);
            }
        }
    }
}

void drawDashedBox(cv::Mat& m, cv::Point p0, cv::Point p1, const cv::Scalar& colour) {
    constexpr int kOn = 6, kPeriod = 10;
    auto dashed = [&](cv::Point a, cv::Point b) {
        const int len = std::max(std::abs(b.x - a.x), std::abs(b.y - a.y));
        for (int i = 0; i <= len; i += kPeriod) {
            const int j = std::min(len, i + kOn - 1);
            const auto at = [&](int k) { return len == 0 ? a : a + (b - a) * k / len; };
            cv::line(m, at(i), at(j), colour, 1, cv::LINE_8);
        }
    };
    dashed(p0, {p1.x, p0.y});
    dashed({p1.x, p0.y}, p1);
    dashed(p1, {p0.x, p1.y});
    dashed({p0.x, p1.y}, p0);
}

// Box edges are pixel boundaries; the rectangle is drawn just inside them.
std::pair<cv::Point, cv::Point> boxCorners(const Box& b, const Mapper& map) {
    const cv::Point2d a = map.point(b.x, b.y), c = map.point(b.x + b.w, b.y + b.h);
    return {cv::Point(int(std::floor(a.x)), int(std::floor(a.y))),
            cv::Point(int(std::ceil(c.x)) - 1, int(std::ceil(c.y)) - 1)};
}

std::optional<cv::Point2d> location(const TraceStep& s, const Image& image, const Mapper& map,
                                    int scale) {
    if (s.chosenPoint) return map.point((*s.chosenPoint)[0], (*s.chosenPoint)[1]);
    if (!validGrid(s) || s.chosenCells.empty()) return std::nullopt;
    const int cell = s.chosenCells.front();
    if (cell < 0 || cell >= s.grid->rows * s.grid->cols) return std::nullopt;
    const cv::Rect r = cellRect(*s.grid, cell, image.width, image.height, scale);
    return cv::Point2d(r.x + r.width / 2.0, r.y + r.height / 2.0);
}

void drawPath(cv::Mat& area, const Trace& trace, int step, const Image& image, const Mapper& map,
              int scale, bool numbers) {
    std::vector<cv::Point> line;
    std::vector<std::pair<int, cv::Point2d>> dots;
    for (int k = 0; k <= step; ++k) {
        const auto p = location(trace.steps[k], image, map, scale);
        if (!p) continue;
        line.push_back(fixed(*p));
        if (k < step) dots.emplace_back(k, *p);
    }
    if (line.size() >= 2) {
        cv::polylines(area, line, false, kBlack, 3, cv::LINE_AA, kShift);
        cv::polylines(area, line, false, kWhite, 1, cv::LINE_AA, kShift);
    }
    for (const auto& [k, p] : dots) {
        const cv::Point c(int(std::lround(p.x)), int(std::lround(p.y)));
        cv::circle(area, c, 6, kWhite, cv::FILLED, cv::LINE_AA);
        cv::circle(area, c, 6, kBlack, 1, cv::LINE_AA);
        if (!numbers) continue;
        const std::string n = std::to_string(k + 1);
        int baseline = 0;
        const cv::Size size = cv::getTextSize(n, kFont, 0.3, 1, &baseline);
        cv::putText(area, n, {c.x - size.width / 2, c.y + size.height / 2}, kFont, 0.3, kBlack, 1,
                    cv::LINE_AA);
    }
}

// Filled bands inside the cell, so the outermost outline pixels sit exactly on the cell border.
void drawOutline(cv::Mat& area, const cv::Rect& r, int thickness) {
    const int t = std::max(1, std::min({thickness, r.width / 2, r.height / 2}));
    cv::rectangle(area, cv::Rect(r.x, r.y, r.width, t), kChosen, cv::FILLED);
    cv::rectangle(area, cv::Rect(r.x, r.y + r.height - t, r.width, t), kChosen, cv::FILLED);
    cv::rectangle(area, cv::Rect(r.x, r.y, t, r.height), kChosen, cv::FILLED);
    cv::rectangle(area, cv::Rect(r.x + r.width - t, r.y, t, r.height), kChosen, cv::FILLED);
}

void drawLegend(cv::Mat& panel, const StepLayout& l, bool hasValue, double maxValue,
                bool gaussian) {
    const int y = l.legendY, barX = kPad + 12, labelW = gaussian ? 70 : 44;
    const int barW = l.panelWidth - barX - labelW - kPad;
    if (!hasValue) {
        cv::putText(panel, "no distribution", {kPad, y + 13}, kFont, 0.35, kText, 1, cv::LINE_AA);
        return;
    }
    cv::putText(panel, "0", {kPad, y + 13}, kFont, 0.35, kText, 1, cv::LINE_AA);
    for (int x = 0; x < barW; ++x) {
        const auto c = toScalar(infernoColour(barW > 1 ? double(x) / (barW - 1) : 1.0));
        cv::line(panel, {barX + x, y + 4}, {barX + x, y + 13}, c, 1);
    }
    const std::string label = gaussian ? format("%.2g/px^2", maxValue) : format("%.3g", maxValue);
    putTextFit(panel, label, {barX + barW + 4, y + 13}, labelW - 4, kText, 0.35);
}

// A caption, word-wrapped to the panel, and whether it is one of the valid captions.
void drawCaptionPanel(cv::Mat& panel, const Trace& trace) {
    putTextFit(panel, "caption (" + trace.rule + ")", {kPad + 2, 4 + kLineHeight - 3}, panel.cols - 2 * kPad, kText);
    int y = 4 + 2 * kLineHeight;
    std::string line;
    auto flush = [&] {
        putTextFit(panel, line, {kPad + 2, y}, panel.cols - 2 * kPad, kText, 0.4);
        y += 16;
        line.clear();
    };
    std::istringstream words(trace.output.text);
    for (std::string w; words >> w;) {
        const std::string longer = line.empty() ? w : line + " " + w;
        if (!line.empty() && textWidth(longer, 0.4) > panel.cols - 2 * kPad) flush();
        line = line.empty() ? w : line + " " + w;
    }
    if (!line.empty()) flush();
    if (trace.groundTruth && !trace.groundTruth->references.empty()) {
        const auto& refs = trace.groundTruth->references;
        const bool valid = std::find(refs.begin(), refs.end(), trace.output.text) != refs.end();
        putTextFit(panel, valid ? "a valid caption" : "not a valid caption", {kPad + 2, y + 4}, panel.cols - 2 * kPad,
                   valid ? kTruth : cv::Scalar(230, 90, 90), 0.4);
    }
}

void drawOutputPanel(cv::Mat& panel, const Trace& trace) {
    if (std::any_of(trace.steps.begin(), trace.steps.end(), [](const TraceStep& s) { return !s.token.empty(); }))
        return drawCaptionPanel(panel, trace);
    const auto& probs = trace.output.probs;
    const int gt = trace.groundTruth ? trace.groundTruth->label : -1;
    putTextFit(panel, "output (top 5)", {kPad + 2, 4 + kLineHeight - 3}, panel.cols - 2 * kPad,
               kText);
    int y = 4 + 2 * kLineHeight;
    auto name = [&](int i) {
        return i >= 0 && std::size_t(i) < trace.classNames.size() ? trace.classNames[i]
                                                                  : std::to_string(i);
    };
    auto row = [&](int i, const std::string& prefix) {
        const bool isGt = i == gt;
        const cv::Scalar colour = isGt ? kTruth : kText;
        if (isGt) cv::circle(panel, {kPad + 3, y - 4}, 3, kTruth, cv::FILLED, cv::LINE_AA);
        putTextFit(panel, prefix + name(i), {kPad + 10, y}, 64, colour, 0.38);
        const int barX = 82, barMax = 74;
        const int w = int(std::lround(std::clamp(double(probs[i]), 0.0, 1.0) * barMax));
        cv::rectangle(panel, cv::Rect(barX, y - 10, barMax, 11), cv::Scalar(55, 55, 55),
                      cv::FILLED);
        if (w > 0)
            cv::rectangle(panel, cv::Rect(barX, y - 10, w, 11),
                          isGt ? kTruth : cv::Scalar(90, 160, 255), cv::FILLED);
        putTextFit(panel, format("%.2f", probs[i]), {barX + barMax + 4, y}, 36, colour, 0.35);
        y += 20;
    };
    if (probs.empty()) {
        putTextFit(panel, "no output probabilities", {kPad + 2, y}, panel.cols - 2 * kPad, kText,
                   0.35);
        y += 20;
    } else {
        std::vector<int> order(probs.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = int(i);
        const std::size_t top = std::min<std::size_t>(5, order.size());
        std::partial_sort(order.begin(), order.begin() + top, order.end(),
                          [&](int a, int b) { return probs[a] > probs[b]; });
        for (std::size_t k = 0; k < top; ++k) row(order[k], "");
        const auto shownEnd = order.begin() + top;
        const bool gtShown = std::find(order.begin(), shownEnd, gt) != shownEnd;
        if (gt >= 0 && std::size_t(gt) < probs.size() && !gtShown) row(gt, "gt: ");
    }
    if (gt >= 0 && (std::size_t(gt) >= probs.size())) {
        putTextFit(panel, "gt: " + name(gt), {kPad + 10, y}, panel.cols - 2 * kPad, kTruth, 0.38);
        y += 20;
    }
    if (!trace.output.text.empty())
        putTextFit(panel, trace.output.text, {kPad + 2, y}, panel.cols - 2 * kPad, kText, 0.38);
}

}  // namespace

std::array<std::uint8_t, 3> infernoColour(double t) {
    t = std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
    const double f = t * 9;
    const int i = std::min(8, int(f));
    const double u = f - i;
    std::array<std::uint8_t, 3> c{};
    for (int k = 0; k < 3; ++k)
        c[k] = std::uint8_t(std::lround(kInferno[i][k] * (1 - u) + kInferno[i + 1][k] * u));
    return c;
}

std::string traceCaption(const Trace& trace) {
    std::vector<std::string> parts;
    if (!trace.modelId.empty()) parts.push_back(trace.modelId);
    if (!trace.imageId.empty()) parts.push_back(trace.imageId);
    if (!trace.rule.empty()) parts.push_back("rule " + trace.rule);
    parts.push_back("seed " + std::to_string(trace.seed));
    const bool captioner = std::any_of(trace.steps.begin(), trace.steps.end(),
                                       [](const TraceStep& s) { return !s.token.empty(); });
    const auto& out = trace.output;
    const auto name = [&](int i) {
        return i >= 0 && std::size_t(i) < trace.classNames.size() ? trace.classNames[i] : std::to_string(i);
    };
    if (captioner) {
        if (!out.text.empty()) parts.push_back("caption \"" + out.text + "\"");
    } else if (out.label >= 0) {
        std::string predicted = "predicted " + (out.text.empty() ? name(out.label) : out.text);
        if (std::size_t(out.label) < out.probs.size()) predicted += format(" (p %.2f)", out.probs[out.label]);
        parts.push_back(predicted);
        if (trace.groundTruth && trace.groundTruth->label >= 0) parts.push_back("true " + name(trace.groundTruth->label));
    }
    std::string text;
    for (const auto& part : parts) text += (text.empty() ? "" : ", ") + part;
    // The renderer's font draws ASCII only.
    for (char& c : text)
        if (static_cast<unsigned char>(c) >= 0x80 || c < 0x20) c = '?';
    return text;
}

std::vector<std::string> wrapCaption(const std::string& caption, int width) {
    // Breaks between the comma-separated parts where it can ("seed 1" stays whole), inside a
    // part only when the part alone is too wide.
    const int room = width - 2 * kPad - 2;
    std::vector<std::string> pieces;
    for (std::size_t start = 0; start < caption.size();) {
        const std::size_t comma = caption.find(", ", start);
        const std::size_t end = comma == std::string::npos ? caption.size() : comma + 1;
        std::string part = caption.substr(start, end - start);
        if (textWidth(part, 0.4) <= room) {
            pieces.push_back(part);
        } else {
            std::istringstream words(part);
            for (std::string w; words >> w;) pieces.push_back(w);
        }
        start = comma == std::string::npos ? caption.size() : comma + 2;
    }
    std::vector<std::string> lines;
    std::string line;
    for (const auto& piece : pieces) {
        if (piece.empty()) continue;
        const std::string longer = line.empty() ? piece : line + " " + piece;
        if (!line.empty() && textWidth(longer, 0.4) > room) {
            lines.push_back(line);
            line = piece;
        } else {
            line = longer;
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

StepLayout layoutTraceStep(int imageWidth, int imageHeight, const Trace& trace,
                           const RenderOptions& o) {
    StepLayout l;
    const int side = std::max({1, imageWidth, imageHeight});
    l.scale = o.scale > 0 ? o.scale : std::max(1, int(std::lround(240.0 / side)));
    const int w = imageWidth * l.scale, h = imageHeight * l.scale;
    l.panelWidth = std::max(w + 2 * kPad, kMinPanelWidth);
    // The title wraps onto a second line when its longest form does not fit; the decision
    // depends on the step count only, so every frame of a trace has the same size.
    const std::string total = std::to_string(std::max<std::size_t>(1, trace.steps.size()));
    std::string longest =
        "step " + total + "/" + total + "  " + trace.rule + "  p(choice)=0.00123  H=00.00";
    const int lines = textWidth(longest, kFontScale) <= l.panelWidth - 2 * kPad ? 1 : 2;
    l.titleHeight = 6 + kLineHeight * lines;
    l.imageX = (l.panelWidth - w) / 2;
    l.imageY = l.titleHeight;
    l.legendY = l.imageY + h + kPad;
    l.captionY = l.legendY + (o.heatmap ? kLegendHeight : 0);
    if (!o.heatmap) l.legendY = l.captionY;
    l.panelHeight = l.captionY + footerHeight(wrapCaption(o.caption, l.panelWidth).size());
    return l;
}

Image renderTraceStep(const Image& image, const Trace& trace, int step, const RenderOptions& o) {
    if (step < 0 || std::size_t(step) >= trace.steps.size())
        throw std::out_of_range("renderTraceStep: step " + std::to_string(step) + " of " +
                                std::to_string(trace.steps.size()));
    const cv::Mat rgb = toRgbMat(image);
    const StepLayout l = layoutTraceStep(image.width, image.height, trace, o);
    const TraceStep& s = trace.steps[step];
    cv::Mat panel(l.panelHeight, l.panelWidth, CV_8UC3, kBackground);
    cv::Mat area =
        panel(cv::Rect(l.imageX, l.imageY, image.width * l.scale, image.height * l.scale));
    cv::resize(rgb, area, area.size(), 0, 0, cv::INTER_NEAREST);
    Mapper map;
    map.sx = double(area.cols) / (trace.imageWidth > 0 ? trace.imageWidth : image.width);
    map.sy = double(area.rows) / (trace.imageHeight > 0 ? trace.imageHeight : image.height);

    double maxValue = -1;
    if (o.heatmap) drawHeatmap(area, s, image, map, l.scale, o.heatmapOpacity, maxValue);
    if (o.groundTruth && trace.groundTruth) {
        for (const Box& b : trace.groundTruth->boxes) {
            const auto [p0, p1] = boxCorners(b, map);
            drawDashedBox(area, p0, p1, kTruth);
        }
    }
    for (const auto& g : s.glimpses) {
        const auto [p0, p1] = boxCorners(g.box, map);
        cv::rectangle(area, p0, p1, kGlimpse[std::clamp(g.scale, 0, 3)], 1, cv::LINE_8);
    }
    if (o.path) drawPath(area, trace, step, image, map, l.scale, o.stepNumbers);
    const std::string number = std::to_string(step + 1);
    if (o.chosen && validGrid(s)) {
        // K draws may repeat a cell: each distinct cell once, thicker and counted ("x3") when repeated.
        const bool kSampled = isRule(trace.rule, RuleKind::KSample);
        std::map<int, int> counts;
        for (int cell : s.chosenCells)
            if (cell >= 0 && cell < s.grid->rows * s.grid->cols) ++counts[cell];
        const int thickness = std::clamp(l.scale / 2, 2, 4);
        for (const auto& [cell, n] : counts) {
            const cv::Rect r = cellRect(*s.grid, cell, image.width, image.height, l.scale);
            drawOutline(area, r, thickness + (kSampled ? std::min(n - 1, 3) : 0));
            const std::string count = kSampled ? "x" + std::to_string(n) : "";
            if (o.stepNumbers || !count.empty())
                putLabel(area, o.stepNumbers ? (count.empty() ? number : number + " " + count) : count,
                         {r.x + thickness, r.y + thickness}, kChosen);
        }
    }
    if (s.gaussian && s.gaussian->stdX > 0 && s.gaussian->stdY > 0) {
        const auto& p = *s.gaussian;
        const cv::Point2d c = map.point(p.meanX, p.meanY);
        const cv::Size axes(int(std::lround(p.stdX * map.sx * (1 << kShift))),
                            int(std::lround(p.stdY * map.sy * (1 << kShift))));
        cv::ellipse(area, fixed(c), axes, 0, 0, 360, kBlack, 3, cv::LINE_AA, kShift);
        cv::ellipse(area, fixed(c), axes, 0, 0, 360, kChosen, 1, cv::LINE_AA, kShift);
        cv::drawMarker(area, cv::Point(int(c.x), int(c.y)), kChosen, cv::MARKER_CROSS, 8, 1);
    }
    if (o.chosen && s.chosenPoint) {
        const cv::Point2d c = map.point((*s.chosenPoint)[0], (*s.chosenPoint)[1]);
        cv::circle(area, fixed(c), 5 << kShift, kBlack, 2, cv::LINE_AA, kShift);
        cv::circle(area, fixed(c), 3 << kShift, kChosen, cv::FILLED, cv::LINE_AA, kShift);
        if (o.stepNumbers) putLabel(area, number, {int(c.x) + 6, int(c.y) + 6}, kChosen);
    }

    const int titleWidth = l.panelWidth - 2 * kPad;
    if (l.titleHeight > 6 + kLineHeight) {
        putTextFit(panel, titleText(trace, step, false, false), {kPad, 3 + kLineHeight - 3},
                   titleWidth, kText);
        putTextFit(panel, titleText(trace, step, false, true), {kPad, 3 + 2 * kLineHeight - 3},
                   titleWidth, kText);
    } else {
        putTextFit(panel, titleText(trace, step, true, false), {kPad, 3 + kLineHeight - 3},
                   titleWidth, kText);
    }
    if (o.heatmap) drawLegend(panel, l, maxValue >= 0, maxValue, !validGrid(s));
    drawFooter(panel, l.captionY, wrapCaption(o.caption, l.panelWidth));
    return fromMat(panel);
}

std::vector<Image> renderTraceFrames(const Image& image, const Trace& trace,
                                     const RenderOptions& o) {
    std::vector<Image> frames;
    frames.reserve(trace.steps.size());
    for (std::size_t t = 0; t < trace.steps.size(); ++t)
        frames.push_back(renderTraceStep(image, trace, int(t), o));
    return frames;
}

std::int64_t traceStripWidth(int imageWidth, int imageHeight, std::int64_t steps, const RenderOptions& o) {
    RenderOptions panels = o;
    panels.caption.clear();
    const StepLayout l = layoutTraceStep(imageWidth, imageHeight, Trace{}, panels);
    return steps * (l.panelWidth + kStripGap) + kOutputPanelWidth;
}

Image renderTraceStrip(const Image& image, const Trace& trace, const RenderOptions& o) {
    toRgbMat(image);  // validates the image even for a trace without steps
    RenderOptions panels = o;  // the strip's caption runs once along its bottom, not per panel
    panels.caption.clear();
    const StepLayout l = layoutTraceStep(image.width, image.height, trace, panels);
    const int steps = int(trace.steps.size());
    const int height = std::max(l.panelHeight, 180);
    const int width = int(traceStripWidth(image.width, image.height, steps, o));
    const auto footer = wrapCaption(o.caption, width);
    cv::Mat strip(height + footerHeight(footer.size()), width, CV_8UC3, cv::Scalar(16, 16, 16));
    drawFooter(strip, height, footer);
    for (int t = 0; t < steps; ++t) {
        const Image p = renderTraceStep(image, trace, t, panels);
        const cv::Mat m(p.height, p.width, CV_8UC3, const_cast<std::uint8_t*>(p.pixels.data()));
        m.copyTo(strip(cv::Rect(t * (l.panelWidth + kStripGap), 0, p.width, p.height)));
    }
    cv::Mat out = strip(cv::Rect(steps * (l.panelWidth + kStripGap), 0, kOutputPanelWidth, height));
    out.setTo(kBackground);
    drawOutputPanel(out, trace);
    return fromMat(strip);
}

}  // namespace saccade
