#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/atomic_file.h"
#include "render/gif_writer.h"
#include "render/trace_render.h"

using namespace saccade;
namespace fs = std::filesystem;

namespace {

using Rgb = std::array<std::uint8_t, 3>;

Image greyImage(int w, int h, std::uint8_t v) {
    Image img = Image::zeros(w, h);
    std::fill(img.pixels.begin(), img.pixels.end(), v);
    return img;
}

// A rows x cols grid with p(cell i) proportional to i + 1, so the last cell is the hottest.
GridDistribution rampGrid(int rows, int cols) {
    GridDistribution g{rows, cols, std::vector<float>(std::size_t(rows) * cols)};
    const double total = double(rows * cols) * (rows * cols + 1) / 2;
    for (std::size_t i = 0; i < g.probs.size(); ++i) g.probs[i] = float((i + 1) / total);
    return g;
}

Trace gridTrace(int w, int h, int rows, int cols, const std::vector<int>& chosen) {
    Trace t;
    t.rule = "sample";
    t.imageWidth = w;
    t.imageHeight = h;
    t.classNames = {"zero", "one", "two", "three"};
    for (int c : chosen) {
        TraceStep s;
        s.grid = rampGrid(rows, cols);
        s.chosenCells = {c};
        s.logProb = std::log(s.grid->probs[c]);
        s.entropy = 2.5;
        t.steps.push_back(s);
    }
    t.output = {2, {0.1f, 0.2f, 0.6f, 0.1f}, ""};
    t.groundTruth = GroundTruth{1, {{10, 10, 20, 20}}};
    return t;
}

Rgb rgbAt(const Image& img, int x, int y) {
    return {img.at(x, y, 0), img.at(x, y, 1), img.at(x, y, 2)};
}
double luminance(const Rgb& c) { return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; }
const Rgb kCyan{kChosenColour[0], kChosenColour[1], kChosenColour[2]};

// A minimal GIF reader written from the GIF89a specification, independent of the writer.
struct DecodedGif {
    int width = 0, height = 0;
    std::vector<Rgb> palette;
    std::vector<std::vector<std::uint8_t>> frames;  // palette indices per frame
    std::vector<int> delays;
    bool loops = false, trailer = false;
    int clearCodes = 0;
    std::string error;
};

std::vector<std::uint8_t> lzwDecode(const std::string& data, int minCodeSize, int& clears,
                                    std::string& error) {
    const int clear = 1 << minCodeSize, end = clear + 1;
    std::vector<int> prefix(4096, -1);
    std::vector<std::uint8_t> suffix(4096), first(4096);
    for (int i = 0; i < clear; ++i) suffix[i] = first[i] = std::uint8_t(i);
    std::vector<std::uint8_t> out;
    int width = minCodeSize + 1, next = clear + 2, prev = -1;
    std::size_t bitPos = 0;
    auto expand = [&](int code) {
        std::vector<std::uint8_t> s;
        for (int c = code; c != -1; c = c < clear ? -1 : prefix[c]) s.push_back(suffix[c]);
        out.insert(out.end(), s.rbegin(), s.rend());
    };
    while (bitPos + width <= data.size() * 8) {
        int code = 0;
        for (int b = 0; b < width; ++b, ++bitPos)
            code |= ((std::uint8_t(data[bitPos / 8]) >> (bitPos % 8)) & 1) << b;
        if (code == clear) {
            ++clears;
            width = minCodeSize + 1;
            next = clear + 2;
            prev = -1;
            continue;
        }
        if (code == end) return out;
        if (prev == -1) {
            if (code >= clear) return error = "first code after clear is not a root", out;
            expand(code);
            prev = code;
            continue;
        }
        if (code > next || (code == next && next >= 4096))
            return error = "code " + std::to_string(code) + " beyond " + std::to_string(next), out;
        const std::uint8_t head = code < next ? first[code] : first[prev];
        if (next < 4096) {
            prefix[next] = prev;
            suffix[next] = head;
            first[next] = first[prev];
            ++next;
            if (next == (1 << width) && width < 12) ++width;
        }
        expand(code);
        prev = code;
    }
    error = "no end-of-information code";
    return out;
}

DecodedGif decodeGif(const std::string& b) {
    DecodedGif g;
    std::size_t at = 0;
    auto u8 = [&]() -> int { return at < b.size() ? std::uint8_t(b[at++]) : -1; };
    auto u16 = [&] {
        const int lo = u8();
        return lo | (u8() << 8);
    };
    auto subBlocks = [&] {
        std::string data;
        for (int n = u8(); n > 0; n = u8()) {
            data.append(b, at, n);
            at += n;
        }
        return data;
    };
    if (b.compare(0, 6, "GIF89a") != 0) return g.error = "no GIF89a header", g;
    at = 6;
    g.width = u16();
    g.height = u16();
    const int packed = u8();
    u8();
    u8();
    for (int i = 0; (packed & 0x80) && i < (2 << (packed & 7)); ++i) {
        const int r = u8(), gr = u8(), bl = u8();
        g.palette.push_back(Rgb{std::uint8_t(r), std::uint8_t(gr), std::uint8_t(bl)});
    }
    while (at < b.size()) {
        const int block = u8();
        if (block == 0x3b) {
            g.trailer = at == b.size();
            return g;
        }
        if (block == 0x21) {
            const int label = u8();
            const std::string data = subBlocks();
            if (label == 0xf9 && data.size() == 4)
                g.delays.push_back(std::uint8_t(data[1]) | (std::uint8_t(data[2]) << 8));
            if (label == 0xff && data.compare(0, 11, "NETSCAPE2.0") == 0) g.loops = true;
        } else if (block == 0x2c) {
            u16(), u16();
            const int w = u16(), h = u16(), flags = u8();
            if (flags != 0) return g.error = "unexpected local table or interlace", g;
            const int minCodeSize = u8();
            auto indices = lzwDecode(subBlocks(), minCodeSize, g.clearCodes, g.error);
            if (!g.error.empty()) return g;
            if (indices.size() != std::size_t(w) * h)
                return g.error = "frame has " + std::to_string(indices.size()) + " pixels", g;
            g.frames.push_back(std::move(indices));
        } else {
            return g.error = "unknown block " + std::to_string(block), g;
        }
    }
    g.error = "no trailer";
    return g;
}

// Distinct colours, each in its own 5-bit-per-channel bin, so the GIF keeps them exactly.
Rgb exactColour(int i) {
    return {std::uint8_t(8 * (i % 32) + 3), std::uint8_t(8 * ((i / 32) % 32) + 5),
            std::uint8_t(8 * (i / 1024) + 7)};
}

Image colourFrame(int w, int h, const std::vector<int>& colourIds) {
    Image f = Image::zeros(w, h, 3);
    for (int i = 0; i < w * h; ++i) {
        const Rgb c = exactColour(colourIds[i]);
        for (int k = 0; k < 3; ++k) f.pixels[3 * i + k] = c[k];
    }
    return f;
}

void expectRoundTrip(const std::vector<Image>& frames, const DecodedGif& g) {
    ASSERT_TRUE(g.error.empty()) << g.error;
    ASSERT_EQ(g.frames.size(), frames.size());
    for (std::size_t f = 0; f < frames.size(); ++f) {
        const Image& in = frames[f];
        for (int i = 0; i < in.width * in.height; ++i) {
            const int idx = g.frames[f][i];
            ASSERT_LT(std::size_t(idx), g.palette.size());
            for (int k = 0; k < 3; ++k) {
                const int want = in.channels == 3 ? in.pixels[3 * i + k] : in.pixels[i];
                ASSERT_EQ(g.palette[idx][k], want) << "frame " << f << " pixel " << i;
            }
        }
    }
}

fs::path tempDir() {
    const fs::path d = fs::temp_directory_path() / ("saccade_render_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

}  // namespace

TEST(Render, InfernoLightnessRisesAlongTheMap) {
    for (int i = 1; i <= 20; ++i)
        EXPECT_GT(luminance(infernoColour(i / 20.0)), luminance(infernoColour((i - 1) / 20.0)))
            << i;
    EXPECT_EQ(infernoColour(0.0), (Rgb{0, 0, 4}));
    EXPECT_EQ(infernoColour(1.0), (Rgb{252, 255, 164}));
    EXPECT_EQ(infernoColour(7.0), infernoColour(1.0));  // clamped
}

TEST(Render, HeatmapHottestCellIsBrighterThanColdest) {
    const Image img = greyImage(60, 60, 128);
    const Trace t = gridTrace(60, 60, 6, 6, {0});
    RenderOptions o;
    o.chosen = o.path = o.groundTruth = o.stepNumbers = false;
    const Image out = renderTraceStep(img, t, 0, o);
    const StepLayout l = layoutTraceStep(60, 60, t, o);
    ASSERT_EQ(l.scale, 4);
    auto centre = [&](int r, int c) {
        return rgbAt(out, l.imageX + (10 * c + 5) * l.scale, l.imageY + (10 * r + 5) * l.scale);
    };
    const Rgb hot = centre(5, 5), mid = centre(2, 3), cold = centre(0, 0);
    EXPECT_NE(hot, cold);
    EXPECT_GT(luminance(hot), luminance(mid));
    EXPECT_GT(luminance(mid), luminance(cold));
    // Normalised per step: the hottest cell takes the top of the map whatever its probability.
    const Rgb top = infernoColour(1.0);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(hot[k], 0.45 * 128 + 0.55 * top[k], 1.0) << k;
    // Outside the image area the panel is untouched by the heatmap.
    EXPECT_EQ(rgbAt(out, 0, l.imageY + 100), (Rgb{32, 32, 32}));
}

TEST(Render, ChosenCellOutlineSitsOnTheScaledCellBorder) {
    const Image img = greyImage(60, 60, 100);
    const Trace t = gridTrace(60, 60, 6, 6, {15});  // row 2, column 3: pixels 30..39 x 20..29
    const Image out = renderTraceStep(img, t, 0);
    const StepLayout l = layoutTraceStep(60, 60, t);
    const int x0 = l.imageX + 120, x1 = l.imageX + 159, y0 = l.imageY + 80, y1 = l.imageY + 119;
    const int ym = (y0 + y1) / 2, xm = (x0 + x1) / 2 + 8;
    EXPECT_EQ(rgbAt(out, x0, ym), kCyan);
    EXPECT_EQ(rgbAt(out, x1, ym), kCyan);
    EXPECT_EQ(rgbAt(out, xm, y0), kCyan);
    EXPECT_EQ(rgbAt(out, xm, y1), kCyan);
    EXPECT_NE(rgbAt(out, x0 - 1, ym), kCyan);
    EXPECT_NE(rgbAt(out, x1 + 1, ym), kCyan);
    EXPECT_NE(rgbAt(out, xm, y0 - 1), kCyan);
    EXPECT_NE(rgbAt(out, xm, y1 + 1), kCyan);
    EXPECT_NE(rgbAt(out, xm, ym), kCyan);  // an outline, not a filled cell
}

TEST(Render, CellsSpanIntegerFractionsWhenTheSizeIsNotAMultiple) {
    const Image img = greyImage(50, 40, 100);
    const Trace t = gridTrace(50, 40, 3, 6, {7});  // row 1, col 1: x 8..15, y 13..25
    RenderOptions o;
    o.scale = 5;
    const Image out = renderTraceStep(img, t, 0, o);
    const StepLayout l = layoutTraceStep(50, 40, t, o);
    ASSERT_EQ(l.scale, 5);
    const int x0 = l.imageX + 40, x1 = l.imageX + 79, y0 = l.imageY + 65, y1 = l.imageY + 129;
    EXPECT_EQ(rgbAt(out, x0, (y0 + y1) / 2), kCyan);
    EXPECT_EQ(rgbAt(out, x1, (y0 + y1) / 2), kCyan);
    EXPECT_EQ(rgbAt(out, (x0 + x1) / 2, y0), kCyan);
    EXPECT_EQ(rgbAt(out, (x0 + x1) / 2, y1), kCyan);
    EXPECT_NE(rgbAt(out, x1 + 1, (y0 + y1) / 2), kCyan);
    EXPECT_NE(rgbAt(out, (x0 + x1) / 2, y1 + 1), kCyan);
}

TEST(Render, StripHoldsEveryStepThenTheOutputPanel) {
    const Image img = greyImage(60, 60, 90);
    const Trace t = gridTrace(60, 60, 6, 6, {0, 8, 15, 22});
    const Image strip = renderTraceStrip(img, t);
    const StepLayout l = layoutTraceStep(60, 60, t);
    EXPECT_EQ(strip.channels, 3);
    EXPECT_EQ(strip.width, 4 * (l.panelWidth + kStripGap) + kOutputPanelWidth);
    // What render checks before tracing is the width the strip gets, at any scale.
    EXPECT_EQ(traceStripWidth(60, 60, 4), strip.width);
    RenderOptions big;
    big.scale = 16;
    EXPECT_EQ(traceStripWidth(60, 60, 4, big), renderTraceStrip(img, t, big).width);
    EXPECT_GT(traceStripWidth(60, 60, 5000), kMaxStripWidth);  // 5,000 steps: refused before tracing
    EXPECT_GE(strip.height, l.panelHeight);
    const Image third = renderTraceStep(img, t, 2);
    for (int y = 0; y < third.height; y += 7)
        for (int x = 0; x < third.width; x += 5)
            ASSERT_EQ(rgbAt(strip, 2 * (l.panelWidth + kStripGap) + x, y), rgbAt(third, x, y));
}

TEST(Render, FramesShareOneSizeAcrossGridAndGaussianSteps) {
    const Image img = greyImage(28, 28, 60);
    Trace t = gridTrace(28, 28, 4, 4, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    TraceStep g;
    g.gaussian = GaussianPolicy{14, 14, 3, 2};
    g.chosenPoint = std::array<double, 2>{15.5, 13};
    g.glimpses = {{0, {10, 9, 8, 8}}, {1, {6, 5, 16, 16}}};
    g.entropy = 12.25;
    t.steps.push_back(g);
    const auto frames = renderTraceFrames(img, t);
    ASSERT_EQ(frames.size(), t.steps.size());
    const StepLayout l = layoutTraceStep(28, 28, t);
    for (const Image& f : frames) {
        EXPECT_EQ(f.width, l.panelWidth);
        EXPECT_EQ(f.height, l.panelHeight);
        EXPECT_EQ(f.channels, 3);
    }
    // The Gaussian heatmap peaks at the mean: hotter half a sigma away than in a far corner.
    const Image& last = frames.back();
    const Rgb nearMean =
        rgbAt(last, l.imageX + int(12.5 * l.scale), l.imageY + int(13.0 * l.scale));
    const Rgb corner = rgbAt(last, l.imageX + 2, l.imageY + 2 + 26 * l.scale);
    EXPECT_GT(luminance(nearMean), luminance(corner) + 40);
}

TEST(Render, CaptionNamesTheRunAndWrapsBetweenItsParts) {
    Trace t = gridTrace(60, 60, 6, 6, {0, 8});
    t.modelId = "patch/hard/fashion60";
    t.imageId = "fashion60:test:7";
    t.seed = 42;
    EXPECT_EQ(traceCaption(t),
              "patch/hard/fashion60, fashion60:test:7, rule sample, seed 42, predicted two (p 0.60), true one");
    // Narrow: every part on its own line, "seed 42" never split.
    const auto lines = wrapCaption(traceCaption(t), 150);
    ASSERT_GE(lines.size(), 4u);
    for (const auto& line : lines) {
        EXPECT_EQ(line.find("seed 42") == std::string::npos, line.find("seed") == std::string::npos) << line;
        EXPECT_NE(line.back(), ' ') << line;
    }
    EXPECT_TRUE(wrapCaption("", 300).empty());
    EXPECT_EQ(wrapCaption("one line", 300), std::vector<std::string>{"one line"});
    // A captioner: the caption in quotes, no class names.
    t.steps[0].token = "a";
    t.output.text = "a red circle";
    EXPECT_EQ(traceCaption(t), "patch/hard/fashion60, fashion60:test:7, rule sample, seed 42, caption \"a red circle\"");
}

TEST(Render, CaptionFooterAddsRowsToEveryFrameAndOnceToTheStrip) {
    const Image img = greyImage(60, 60, 90);
    const Trace t = gridTrace(60, 60, 6, 6, {0, 8, 15});
    RenderOptions o;
    o.scale = 3;
    const StepLayout plain = layoutTraceStep(60, 60, t, o);
    o.caption = "model, seed 1";
    const StepLayout captioned = layoutTraceStep(60, 60, t, o);
    EXPECT_EQ(plain.panelWidth, 200);  // 60 * 3 + padding is below the minimum panel width
    EXPECT_EQ(captioned.captionY, plain.panelHeight);
    EXPECT_EQ(captioned.panelHeight, plain.panelHeight + 22);  // one line: 16 px + 6 px padding
    const auto frames = renderTraceFrames(img, t, o);
    for (const Image& f : frames) EXPECT_EQ(f.height, captioned.panelHeight);
    // Light text in the footer, none in the same rows of an uncaptioned panel's background.
    int bright = 0;
    for (int y = captioned.captionY; y < captioned.panelHeight; ++y)
        for (int x = 0; x < captioned.panelWidth; ++x) bright += luminance(rgbAt(frames[0], x, y)) > 150;
    EXPECT_GT(bright, 20);
    RenderOptions noCaption = o;
    noCaption.caption.clear();
    const Image strip = renderTraceStrip(img, t, o), bare = renderTraceStrip(img, t, noCaption);
    EXPECT_EQ(strip.width, bare.width);
    EXPECT_EQ(strip.height, bare.height + 22);  // once along the strip, not per panel
}

TEST(Render, AStepWithoutADistributionSaysSoInsteadOfZeroEntropy) {
    const Image img = greyImage(28, 28, 60);
    Trace t = gridTrace(28, 28, 4, 4, {0});
    TraceStep fixed;  // the RAM's first glimpse: a point, no policy
    fixed.chosenPoint = std::array<double, 2>{14, 14};
    t.steps.insert(t.steps.begin(), fixed);
    const Image first = renderTraceStep(img, t, 0), second = renderTraceStep(img, t, 1);
    // The two titles differ: "fixed, no policy" is drawn where a policy's p and H would be.
    const StepLayout l = layoutTraceStep(28, 28, t);
    int differing = 0;
    for (int y = 0; y < l.titleHeight; ++y)
        for (int x = 0; x < l.panelWidth; ++x) differing += rgbAt(first, x, y) != rgbAt(second, x, y);
    EXPECT_GT(differing, 50);
}

TEST(Render, BadInputsAreCallerBugs) {
    const Trace t = gridTrace(60, 60, 6, 6, {0});
    EXPECT_THROW(renderTraceStep(greyImage(60, 60, 0), t, 1), std::out_of_range);
    EXPECT_THROW(renderTraceStep(Image{}, t, 0), std::invalid_argument);
    EXPECT_TRUE(renderTraceFrames(greyImage(8, 8, 0), Trace{}).empty());
}

TEST(Gif, HeaderScreenLoopDelaysTrailerAndExactColours) {
    std::mt19937 rng(7);
    std::vector<Image> frames;
    for (int f = 0; f < 3; ++f) {
        std::vector<int> ids(37 * 23);
        for (auto& id : ids) id = int(rng() % 40) + 40 * f;  // 120 colours in all
        frames.push_back(colourFrame(37, 23, ids));
    }
    const auto bytes = encodeGif(frames, 7);
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    EXPECT_EQ(bytes->substr(0, 6), "GIF89a");
    const DecodedGif g = decodeGif(*bytes);
    EXPECT_EQ(g.width, 37);
    EXPECT_EQ(g.height, 23);
    EXPECT_EQ(g.palette.size(), 128u);
    EXPECT_TRUE(g.loops);
    EXPECT_TRUE(g.trailer);
    EXPECT_EQ(g.delays, (std::vector<int>{7, 7, 7}));
    expectRoundTrip(frames, g);

    const DecodedGif once = decodeGif(*encodeGif(frames, 0, /*loop=*/false));
    EXPECT_FALSE(once.loops);
    expectRoundTrip(frames, once);
}

TEST(Gif, FullCodeTableEmitsClearCodesAndStillRoundTrips) {
    std::mt19937 rng(11);
    std::vector<int> ids(128 * 128);
    for (auto& id : ids) id = int(rng() % 256);
    const std::vector<Image> frames{colourFrame(128, 128, ids)};
    const auto bytes = encodeGif(frames, 10);
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    const DecodedGif g = decodeGif(*bytes);
    EXPECT_EQ(g.palette.size(), 256u);
    EXPECT_GE(g.clearCodes, 3);  // the leading clear and at least two table resets
    expectRoundTrip(frames, g);
}

TEST(Gif, TinyGreyFramesUseTheMinimumCodeSize) {
    const std::vector<Image> frames{greyImage(1, 1, 200), greyImage(1, 1, 17)};
    const DecodedGif g = decodeGif(*encodeGif(frames, 50));
    EXPECT_EQ(g.palette.size(), 4u);
    expectRoundTrip(frames, g);
}

TEST(Gif, RenderedFramesSurviveThePalette) {
    const Image img = greyImage(60, 60, 120);
    const auto frames = renderTraceFrames(img, gridTrace(60, 60, 6, 6, {0, 8, 15}));
    const fs::path path = tempDir() / "anim.gif";
    const auto written = writeGif(frames, 80, path.string());
    ASSERT_TRUE(written.ok()) << written.error();
    const auto bytes = readFile(path.string());
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    EXPECT_EQ(*bytes, *encodeGif(frames, 80));
    const DecodedGif g = decodeGif(*bytes);
    ASSERT_TRUE(g.error.empty()) << g.error;
    ASSERT_EQ(g.frames.size(), frames.size());
    double error = 0;
    int worst = 0;
    for (std::size_t f = 0; f < frames.size(); ++f) {
        for (std::size_t i = 0; i < g.frames[f].size(); ++i) {
            for (int k = 0; k < 3; ++k) {
                const int d = std::abs(g.palette[g.frames[f][i]][k] - frames[f].pixels[3 * i + k]);
                error += d;
                worst = std::max(worst, d);
            }
        }
    }
    error /= 3.0 * frames.size() * g.frames[0].size();
    EXPECT_LT(error, 2.0);
    EXPECT_LT(worst, 40);
    fs::remove_all(path.parent_path());
}

TEST(Gif, ErrorsForEmptyMismatchedAndUnwritable) {
    EXPECT_FALSE(encodeGif({}, 10).ok());
    const auto mismatched = encodeGif({greyImage(4, 4, 0), greyImage(4, 5, 0)}, 10);
    ASSERT_FALSE(mismatched.ok());
    EXPECT_NE(mismatched.error().find("frame 2"), std::string::npos) << mismatched.error();
    const auto channels = encodeGif({greyImage(4, 4, 0), Image::zeros(4, 4, 3)}, 10);
    EXPECT_FALSE(channels.ok());
    EXPECT_FALSE(encodeGif({Image{}}, 10).ok());
    EXPECT_FALSE(encodeGif({greyImage(4, 4, 0)}, -1).ok());
    const std::string path = "/nonexistent-saccade-dir/sub/anim.gif";
    const auto unwritable = writeGif({greyImage(4, 4, 0)}, 10, path);
    ASSERT_FALSE(unwritable.ok());
    EXPECT_NE(unwritable.error().find(path), std::string::npos) << unwritable.error();
}
