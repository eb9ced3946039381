// The Sequences page's figures: the alignment matrix carries its colour scale, and the head view
// draws each weight as a line as strong as the weight (bertviz's reading), the current step's
// at full strength.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "data/image_io.h"

#include "models/seq/seq_model.h"
#include "render/alignment_render.h"
#include "render/trace_render.h"

using namespace saccade;

namespace {

SeqTranslation twoByThree() {
    SeqTranslation t;
    t.rule = "soft";
    t.source = {"a", "b", "c"};
    t.tokens = {"x", "</s>"};
    t.alignment = {{0.9, 0.1, 0.0}, {0.0, 0.2, 0.8}};
    t.chosen = {-1, -1};
    t.entropy = {0.3, 0.5};
    t.topWords = {{}, {}};
    t.output = "x";
    t.finished = true;
    return t;
}

std::array<int, 3> pixel(const Image& image, int x, int y) {
    const auto* p = &image.pixels[(std::size_t(y) * std::size_t(image.width) + std::size_t(x)) * 3];
    return {p[0], p[1], p[2]};
}

}  // namespace

TEST(AlignmentRender, TheMatrixCarriesAColourScaleFromZeroToOne) {
    AlignmentRenderOptions o;
    o.cell = 24;
    const Image image = renderAlignment(twoByThree(), o);
    // The scale's column: right of the matrix (x of the cells: at most 3 cells past the labels),
    // inferno(1) at its top and inferno(0) at its bottom. Header: cell + 4 = 28 px; 2 rows.
    const auto top = infernoColour(1.0), bottom = infernoColour(0.0);
    auto near = [](std::array<int, 3> p, std::array<std::uint8_t, 3> c, int tolerance) {
        return std::abs(p[0] - c[0]) + std::abs(p[1] - c[1]) + std::abs(p[2] - c[2]) < tolerance;
    };
    int column = -1;
    for (int x = image.width - 1; x >= 0 && column < 0; --x)
        if (near(pixel(image, x, 28 + 1), top, 60)) column = x - 2;  // inside the bar, off its outline
    ASSERT_GT(column, 3 * 24) << image.width << "x" << image.height;
    if (std::getenv("SACCADE_KEEP_FIGURE")) (void)saveImagePng(image, std::getenv("SACCADE_KEEP_FIGURE"));
    EXPECT_TRUE(near(pixel(image, column, 28 + 2 * 24 - 3), bottom, 40));
    EXPECT_TRUE(near(pixel(image, column, 28 + 24), infernoColour(0.5), 60));  // the middle: 0.5
    const std::string svg = alignmentSvg(twoByThree(), o);
    EXPECT_NE(svg.find("linearGradient id=\"weightScale\""), std::string::npos);
    EXPECT_NE(svg.find(">0.5</text>"), std::string::npos);
}

TEST(AlignmentRender, TheHeadViewDrawsTheCurrentStepsWeightsStrongest) {
    AlignmentRenderOptions o;
    o.cell = 24;
    o.highlight = 0;  // x: 0.9 to a, 0.1 to b
    const Image first = renderHeadView(twoByThree(), o);
    o.highlight = 1;  // </s>: 0.8 to c
    const Image second = renderHeadView(twoByThree(), o);
    EXPECT_EQ(first.width, second.width);
    // Count strongly blue pixels (a weight near 1 is drawn (30, 120, 240), several px wide).
    auto strongBlue = [](const Image& image) {
        int n = 0;
        for (int y = 0; y < image.height; ++y)
            for (int x = 0; x < image.width; ++x) {
                const auto p = pixel(image, x, y);
                n += p[2] > 200 && p[0] < 90 && p[1] < 160;
            }
        return n;
    };
    EXPECT_GT(strongBlue(first), 150);   // a thick line, not a faint hairline
    EXPECT_GT(strongBlue(second), 100);
    EXPECT_NE(first.pixels, second.pixels);  // the step changes which lines are strong
    EXPECT_GE(first.width, 200);             // room between the columns, as bertviz draws it
}
