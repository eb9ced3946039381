#include "data/procedural_digits.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <random>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "common/seed_mix.h"

namespace saccade {

namespace {

// Glyphs are drawn on a larger canvas and reduced with INTER_AREA: strokes keep smooth, soft
// edges like MNIST's instead of the jagged ones putText gives at 28 pixels.
constexpr int kCanvas = 64;
constexpr int kFitBox = 20;  // MNIST fits each digit into 20x20 inside the 28x28 frame
// The elastic field (Simard et al.: white noise blurred by a Gaussian, times alpha) is drawn
// on a coarse grid over the canvas, 20 cells of about 2 MNIST pixels, at a quarter of the cost
// of per-pixel noise. Dividing alpha by the cell size keeps Simard's amplitude; sigma is 2.5
// cells (about 5 MNIST pixels), a little smoother than his 4, which read better in our glyphs.
constexpr int kFieldCells = 20;
constexpr double kElasticSigmaCells = 2.5;
constexpr int kElasticKernel = 15;  // +-3 sigma
constexpr int kInkThreshold = 8;    // ignore the faintest antialiasing fringe when boxing the ink

constexpr std::uint64_t kImageStream = 0x494d47;  // "IMG"
constexpr std::uint64_t kLabelStream = 0x4c424c;  // "LBL"

// Train and test draw from different streams of the same tag.
std::uint64_t sampleSeed(std::uint64_t seed, Split split, std::uint64_t stream,
                         std::int64_t index) {
    return mixSeed(seed, stream * 2 + (split == Split::Test ? 1 : 0),
                   static_cast<std::uint64_t>(index));
}

double uniform(std::mt19937_64& rng, double lo, double hi) {
    return lo + (hi - lo) * uniform01(rng);
}
int pick(std::mt19937_64& rng, int n) { return static_cast<int>(uniformInt(rng, 0, n - 1)); }

// Hershey faces that read as digits; the script faces come twice because they look most
// handwritten. COMPLEX_SMALL is left out: at this size it is the same as COMPLEX.
constexpr int kFaces[] = {
    cv::FONT_HERSHEY_SIMPLEX,        cv::FONT_HERSHEY_PLAIN,
    cv::FONT_HERSHEY_DUPLEX,         cv::FONT_HERSHEY_COMPLEX,
    cv::FONT_HERSHEY_TRIPLEX,        cv::FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv::FONT_HERSHEY_SCRIPT_COMPLEX, cv::FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv::FONT_HERSHEY_SCRIPT_COMPLEX,
};

// A smooth random displacement field (x and y in two channels) with unit-alpha amplitude,
// resized to the canvas.
cv::Mat elasticField(std::mt19937_64& rng) {
    // Two 32-bit uniforms per draw halve the generator's work; 32 bits are plenty for noise.
    cv::Mat field(kFieldCells, kFieldCells, CV_32FC2);
    auto* values = field.ptr<float>();
    for (int i = 0; i < kFieldCells * kFieldCells * 2; i += 2) {
        const std::uint64_t bits = rng();
        values[i] = static_cast<float>(double(bits >> 32) * 0x1.0p-31 - 1.0);
        values[i + 1] = static_cast<float>(double(bits & 0xffffffffu) * 0x1.0p-31 - 1.0);
    }
    cv::GaussianBlur(field, field, cv::Size(kElasticKernel, kElasticKernel), kElasticSigmaCells,
                     kElasticSigmaCells, cv::BORDER_REFLECT_101);
    cv::Mat canvasField;
    cv::resize(field, canvasField, cv::Size(kCanvas, kCanvas), 0, 0, cv::INTER_LINEAR);
    return canvasField;
}

// Fits the ink into a 20x20 box (keeping its aspect) and places it in 28x28 with its centre of
// mass at the frame's centre, clamped so the box stays inside the frame.
Image fitLikeMnist(const cv::Mat& warped) {
    int x0 = kCanvas, y0 = kCanvas, x1 = -1, y1 = -1;
    for (int y = 0; y < warped.rows; ++y) {
        const auto* row = warped.ptr<std::uint8_t>(y);
        for (int x = 0; x < warped.cols; ++x) {
            if (row[x] <= kInkThreshold) continue;
            x0 = std::min(x0, x), x1 = std::max(x1, x);
            y0 = std::min(y0, y), y1 = std::max(y1, y);
        }
    }
    Image out = Image::zeros(ProceduralDigits::kSize, ProceduralDigits::kSize);
    if (x1 < 0) return out;  // cannot happen with the ranges used, kept as a guard
    const int w = x1 - x0 + 1, h = y1 - y0 + 1;
    const double scale = double(kFitBox) / std::max(w, h);
    const int fw = std::max(1, int(std::lround(w * scale)));
    const int fh = std::max(1, int(std::lround(h * scale)));
    cv::Mat fitted;
    cv::resize(warped(cv::Rect(x0, y0, w, h)), fitted, cv::Size(fw, fh), 0, 0, cv::INTER_AREA);

    const cv::Moments m = cv::moments(fitted);
    const double cx = m.m00 > 0 ? m.m10 / m.m00 : fw / 2.0;
    const double cy = m.m00 > 0 ? m.m01 / m.m00 : fh / 2.0;
    const double centre = (ProceduralDigits::kSize - 1) / 2.0;  // in pixel-index coordinates
    const int ox = std::clamp(int(std::lround(centre - cx)), 0, ProceduralDigits::kSize - fw);
    const int oy = std::clamp(int(std::lround(centre - cy)), 0, ProceduralDigits::kSize - fh);
    for (int y = 0; y < fh; ++y) {
        for (int x = 0; x < fw; ++x) out.at(ox + x, oy + y) = fitted.at<std::uint8_t>(y, x);
    }
    return out;
}

}  // namespace

ProceduralDigits::ProceduralDigits(std::uint64_t seed) : m_seed(seed) {}

std::string ProceduralDigits::name() const { return "procedural-digits"; }

std::int64_t ProceduralDigits::size(Split split) const {
    return split == Split::Train ? kTrainSize : kTestSize;
}

std::vector<std::string> ProceduralDigits::classNames() const {
    return {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
}

int ProceduralDigits::label(Split split, std::int64_t index) const {
    assert(index >= 0 && index < size(split));
    std::mt19937_64 rng(sampleSeed(m_seed, split, kLabelStream, index / 10));
    int order[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int k = 9; k > 0; --k) std::swap(order[k], order[pick(rng, k + 1)]);
    return order[index % 10];
}

Image ProceduralDigits::image(Split split, std::int64_t index) const {
    assert(index >= 0 && index < size(split));
    std::mt19937_64 rng(sampleSeed(m_seed, split, kImageStream, index));
    // Draw every parameter up front and in a fixed order, so the stream never depends on
    // what OpenCV does with them.
    const int face = kFaces[pick(rng, int(std::size(kFaces)))];
    const bool italic = uniform01(rng) < 0.25;
    const double height = uniform(rng, 28.0, 38.0);          // glyph height on the canvas, px
    const double strokeFraction = uniform(rng, 0.09, 0.15);  // stroke width / glyph height
    const double widthScale = uniform(rng, 0.75, 1.15);
    const double shear = uniform(rng, -0.15, italic ? 0.1 : 0.35);  // > 0 leans right
    const double rotation = uniform(rng, -15.0, 15.0) * CV_PI / 180.0;
    const double alpha = uniform(rng, 24.0, 36.0);
    const cv::Mat displacement = elasticField(rng);

    const std::string text(1, char('0' + label(split, index)));
    const int fontFace = face | (italic ? cv::FONT_ITALIC : 0);
    int baseline = 0;
    const cv::Size unit = cv::getTextSize(text, fontFace, 1.0, 1, &baseline);
    const double fontScale = height / std::max(1, unit.height);
    const int thickness = std::max(1, int(std::lround(height * strokeFraction)));
    const cv::Size size = cv::getTextSize(text, fontFace, fontScale, thickness, &baseline);
    cv::Mat glyph = cv::Mat::zeros(kCanvas, kCanvas, CV_8U);
    const cv::Point origin((kCanvas - size.width) / 2, (kCanvas + size.height) / 2);
    // Plain 8-connected strokes: antialiased thick strokes cost five times as much, and the
    // bilinear remap and the INTER_AREA reduction below soften the edges anyway.
    cv::putText(glyph, text, origin, fontFace, fontScale, cv::Scalar(255), thickness, cv::LINE_8);

    // One remap does both warps: the output pixel p reads the glyph at A^-1 (p + d(p)), where A
    // scales the width, shears and rotates about the canvas centre.
    const double c = kCanvas / 2.0, cosR = std::cos(rotation), sinR = std::sin(rotation);
    // A = R * S * W; its inverse is W^-1 * S^-1 * R^-1 with S = [[1, -shear], [0, 1]].
    const double i00 = cosR / widthScale + shear * -sinR / widthScale;
    const double i01 = sinR / widthScale + shear * cosR / widthScale;
    const double i10 = -sinR, i11 = cosR;
    cv::Mat mapX(kCanvas, kCanvas, CV_32F), mapY(kCanvas, kCanvas, CV_32F);
    const double pixelScale = height / kFitBox;  // MNIST pixels to canvas pixels
    const double cellSize = double(kCanvas) / kFieldCells / pixelScale;  // in MNIST pixels
    const double amplitude = alpha / cellSize * pixelScale;  // canvas pixels per unit of field
    for (int y = 0; y < kCanvas; ++y) {
        const auto* rowD = displacement.ptr<cv::Vec2f>(y);
        float* rowX = mapX.ptr<float>(y);
        float* rowY = mapY.ptr<float>(y);
        for (int x = 0; x < kCanvas; ++x) {
            const double px = x + rowD[x][0] * amplitude - c;
            const double py = y + rowD[x][1] * amplitude - c;
            rowX[x] = static_cast<float>(i00 * px + i01 * py + c);
            rowY[x] = static_cast<float>(i10 * px + i11 * py + c);
        }
    }
    cv::Mat warped;
    cv::remap(glyph, warped, mapX, mapY, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0));
    return fitLikeMnist(warped);
}

}  // namespace saccade
