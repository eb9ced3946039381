#include "render/figure_canvas.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include <opencv2/imgproc.hpp>


namespace saccade {
namespace {

constexpr int kFigureFont = cv::FONT_HERSHEY_SIMPLEX;

/// Hershey simplex capitals are about 22 px tall at scale 1.
double fontScale(double size) { return size / 22.0; }

std::string ascii(const std::string& s) {
    std::string out;
    for (unsigned char c : s) out += (c >= 32 && c < 127) ? char(c) : '?';
    return out;
}

cv::Scalar bgr(const Rgb& c) { return {double(c[2]), double(c[1]), double(c[0])}; }

std::string hexColour(const Rgb& c) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c[0], c[1], c[2]);
    return buffer;
}

cv::Point px(double x, double y) { return {int(std::lround(x)), int(std::lround(y))}; }

void dashedLine(cv::Mat& m, cv::Point a, cv::Point b, const cv::Scalar& colour, int width) {
    const double length = std::hypot(b.x - a.x, b.y - a.y);
    const int dashes = std::max(1, int(length / 6));
    for (int i = 0; i < dashes; i += 2) {
        const double t0 = double(i) / dashes, t1 = std::min(1.0, double(i + 1) / dashes);
        cv::line(m, {int(a.x + t0 * (b.x - a.x)), int(a.y + t0 * (b.y - a.y))},
                 {int(a.x + t1 * (b.x - a.x)), int(a.y + t1 * (b.y - a.y))}, colour, width, cv::LINE_AA);
    }
}

}  // namespace

std::string escapeXml(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

FigureCanvas::FigureCanvas(int width, int height, Rgb background)
    : m_width(width), m_height(height), m_background(background) {}

void FigureCanvas::fill(double x, double y, double w, double h, Rgb colour) {
    m_items.push_back({Item::Fill, {{x, y}, {w, h}}, colour});
}

void FigureCanvas::outline(double x, double y, double w, double h, Rgb colour, double lineWidth) {
    m_items.push_back({Item::Outline, {{x, y}, {w, h}}, colour, lineWidth});
}

void FigureCanvas::line(double x0, double y0, double x1, double y1, Rgb colour, double lineWidth, bool dashed) {
    m_items.push_back({Item::Line, {{x0, y0}, {x1, y1}}, colour, lineWidth, dashed});
}

void FigureCanvas::polyline(const std::vector<std::pair<double, double>>& points, Rgb colour, double lineWidth, bool dashed) {
    if (points.size() >= 2) m_items.push_back({Item::Line, points, colour, lineWidth, dashed});
}

void FigureCanvas::text(double x, double y, const std::string& text, double size, Rgb colour, TextAnchor anchor) {
    m_items.push_back({Item::Text, {{x, y}}, colour, size, false, ascii(text), anchor});
}

double FigureCanvas::textWidth(const std::string& text, double size) {
    int base = 0;
    return cv::getTextSize(ascii(text), kFigureFont, fontScale(size), 1, &base).width;
}

void FigureCanvas::fittedText(double x, double y, const std::string& text, double size, double maxWidth, Rgb colour,
                              TextAnchor anchor) {
    const double w = textWidth(text, size);
    if (w > maxWidth && w > 0) size = std::max(8.0, size * maxWidth / w);
    this->text(x, y, text, size, colour, anchor);
}

Image FigureCanvas::toImage() const {
    cv::Mat m(m_height, m_width, CV_8UC3, bgr(m_background));
    for (const auto& it : m_items) {
        const auto colour = bgr(it.colour);
        const int width = std::max(1, int(std::lround(it.size)));
        switch (it.kind) {
            case Item::Fill:
                cv::rectangle(m, cv::Rect(px(it.points[0].first, it.points[0].second),
                                          px(it.points[0].first + it.points[1].first, it.points[0].second + it.points[1].second)),
                              colour, cv::FILLED);
                break;
            case Item::Outline:
                cv::rectangle(m, px(it.points[0].first, it.points[0].second),
                              px(it.points[0].first + it.points[1].first, it.points[0].second + it.points[1].second), colour, width);
                break;
            case Item::Line:
                for (std::size_t i = 1; i < it.points.size(); ++i) {
                    const auto a = px(it.points[i - 1].first, it.points[i - 1].second), b = px(it.points[i].first, it.points[i].second);
                    if (it.dashed) dashedLine(m, a, b, colour, width);
                    else cv::line(m, a, b, colour, width, cv::LINE_AA);
                }
                break;
            case Item::Text: {
                int base = 0;
                const auto size = cv::getTextSize(it.text, kFigureFont, fontScale(it.size), 1, &base);
                double x = it.points[0].first;
                if (it.anchor == TextAnchor::Middle) x -= size.width / 2.0;
                if (it.anchor == TextAnchor::End) x -= size.width;
                cv::putText(m, it.text, px(x, it.points[0].second), kFigureFont, fontScale(it.size), colour, 1, cv::LINE_AA);
                break;
            }
        }
    }
    Image out = Image::zeros(m_width, m_height, 3);
    cv::Mat rgb;
    cv::cvtColor(m, rgb, cv::COLOR_BGR2RGB);
    std::copy(rgb.data, rgb.data + out.pixels.size(), out.pixels.begin());
    return out;
}

std::string FigureCanvas::toSvg(const std::string& title) const {
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << m_width << "\" height=\"" << m_height
      << "\" viewBox=\"0 0 " << m_width << " " << m_height << "\" font-family=\"sans-serif\">\n<title>"
      << escapeXml(ascii(title)) << "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"" << hexColour(m_background) << "\"/>\n";
    for (const auto& it : m_items) {
        switch (it.kind) {
            case Item::Fill:
            case Item::Outline:
                s << "<rect x=\"" << it.points[0].first << "\" y=\"" << it.points[0].second << "\" width=\""
                  << it.points[1].first << "\" height=\"" << it.points[1].second << "\" "
                  << (it.kind == Item::Fill ? "fill=\"" + hexColour(it.colour) + "\""
                                            : "fill=\"none\" stroke=\"" + hexColour(it.colour) + "\" stroke-width=\"" +
                                                  std::to_string(it.size) + "\"")
                  << "/>\n";
                break;
            case Item::Line:
                s << "<polyline fill=\"none\" stroke=\"" << hexColour(it.colour) << "\" stroke-width=\"" << it.size << "\""
                  << (it.dashed ? " stroke-dasharray=\"4 3\"" : "") << " points=\"";
                for (const auto& [x, y] : it.points) s << x << "," << y << " ";
                s << "\"/>\n";
                break;
            case Item::Text:
                s << "<text x=\"" << it.points[0].first << "\" y=\"" << it.points[0].second << "\" font-size=\""
                  << it.size * 1.35 << "\" fill=\"" << hexColour(it.colour) << "\" text-anchor=\""
                  << (it.anchor == TextAnchor::Start ? "start" : it.anchor == TextAnchor::Middle ? "middle" : "end")
                  << "\">" << escapeXml(it.text) << "</text>\n";
                break;
        }
    }
    s << "</svg>\n";
    return s.str();
}

}  // namespace saccade
