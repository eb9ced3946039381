#include "data/contact_sheet.h"

#include <algorithm>
#include <sstream>

#include <opencv2/imgproc.hpp>

#include "data/image_mat.h"

namespace saccade {

namespace {

void drawBox(cv::Mat& tile, const Box& b, double scale, const cv::Scalar& colour) {
    // Box edges are pixel boundaries; the rectangle is drawn just inside them.
    const cv::Point p0(int(b.x * scale), int(b.y * scale));
    const cv::Point p1(int((b.x + b.w) * scale) - 1, int((b.y + b.h) * scale) - 1);
    cv::rectangle(tile, p0, p1, colour, 1, cv::LINE_8);
}

// Greedy word wrap at the tile width; the last line takes what is left.
std::vector<std::string> wrap(const std::string& text, int width, double fontScale, int maxLines) {
    std::vector<std::string> lines(1);
    std::istringstream words(text);
    std::string word;
    int baseline = 0;
    while (words >> word) {
        const std::string candidate = lines.back().empty() ? word : lines.back() + " " + word;
        const bool fits =
            cv::getTextSize(candidate, cv::FONT_HERSHEY_SIMPLEX, fontScale, 1, &baseline).width <= width;
        if (fits || lines.back().empty() || int(lines.size()) == maxLines) lines.back() = candidate;
        else lines.push_back(word);
    }
    return lines;
}

void drawGrid(cv::Mat& tile, const ContactSheetOptions& o, int imageSide, double scale) {
    const cv::Scalar colour(70, 110, 200);
    for (int v = o.gridOriginX % o.gridCell; v <= imageSide; v += o.gridCell) {
        const int p = int(v * scale);
        cv::line(tile, {p, 0}, {p, tile.rows - 1}, colour, 1);
    }
    for (int v = o.gridOriginY % o.gridCell; v <= imageSide; v += o.gridCell) {
        const int p = int(v * scale);
        cv::line(tile, {0, p}, {tile.cols - 1, p}, colour, 1);
    }
}

}  // namespace

Image contactSheet(const std::vector<Sample>& samples, const std::vector<std::string>& titles,
                   const ContactSheetOptions& o) {
    const int columns = std::max(1, o.columns);
    const int rows = std::max(1, int((samples.size() + columns - 1) / columns));
    constexpr double kFontScale = 0.4;
    constexpr int kLineHeight = 14;
    const int lines = std::max(1, o.captionLines);
    const int captionHeight = 4 + kLineHeight * lines, pad = 6;
    const int cellW = o.tileSize + pad, cellH = o.tileSize + captionHeight + pad;
    cv::Mat sheet(rows * cellH + pad, columns * cellW + pad, CV_8UC3, cv::Scalar(40, 40, 40));

    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        if (s.image.empty()) continue;
        const double scale =
            double(o.tileSize) / std::max(s.image.width, s.image.height);
        cv::Mat tile;
        cv::resize(toRgbMat(s.image), tile, cv::Size(), scale, scale, cv::INTER_NEAREST);
        if (o.gridCell > 0) drawGrid(tile, o, std::max(s.image.width, s.image.height), scale);
        if (o.drawBoxes) {
            for (const auto& d : s.distractors) drawBox(tile, d, scale, cv::Scalar(230, 60, 60));
            for (const auto& obj : s.objects) drawBox(tile, obj.box, scale, cv::Scalar(240, 220, 40));
            if (s.objects.empty() && s.box.w > 0) drawBox(tile, s.box, scale, cv::Scalar(60, 230, 60));
        }
        const int x = pad + int(i % columns) * cellW, y = pad + int(i / columns) * cellH;
        tile.copyTo(sheet(cv::Rect(x, y, tile.cols, tile.rows)));
        const std::string title = i < titles.size() ? titles[i] : std::string();
        const auto wrapped = wrap(title, o.tileSize, kFontScale, lines);
        for (std::size_t l = 0; l < wrapped.size(); ++l) {
            cv::putText(sheet, wrapped[l], cv::Point(x, y + o.tileSize + 13 + int(l) * kLineHeight),
                        cv::FONT_HERSHEY_SIMPLEX, kFontScale, cv::Scalar(235, 235, 235), 1,
                        cv::LINE_AA);
        }
    }
    Image out{sheet.cols, sheet.rows, 3, {}};
    out.pixels.assign(sheet.datastart, sheet.dataend);
    return out;
}

}  // namespace saccade
