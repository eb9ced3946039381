// Faithfulness measures: occlusion fills exactly the chosen cells, TV distance and Spearman on
// known values, and the whole report on a hand-set policy whose figures follow from the boxes.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "metrics/attention_regions.h"
#include "analysis/attribution/faithfulness.h"
#include "data/dataset.h"
#include "fixed_cell_model.h"

using namespace saccade;

TEST(Faithfulness, OcclusionFillsExactlyTheChosenCells) {
    Image image = Image::zeros(10, 10, 1);
    std::fill(image.pixels.begin(), image.pixels.end(), 200);
    // A 3 x 3 grid over 10 px: columns 0-2, 3-5, 6-9; cell 4 is x, y in [3, 6), cell 8 in [6, 10).
    const Image out = occludeCells(image, 3, 3, {4, 8}, 7);
    for (int y = 0; y < 10; ++y)
        for (int x = 0; x < 10; ++x) {
            const bool inside = (x >= 3 && x < 6 && y >= 3 && y < 6) || (x >= 6 && y >= 6);
            EXPECT_EQ(out.at(x, y), inside ? 7 : 200) << x << "," << y;
        }
    EXPECT_EQ(image.at(4, 4), 200);  // the input is untouched
}

TEST(Faithfulness, DistancesAndRankCorrelationOnKnownValues) {
    EXPECT_DOUBLE_EQ(totalVariation({0.5f, 0.5f, 0.f}, {0.f, 0.5f, 0.5f}), 0.5);
    EXPECT_DOUBLE_EQ(totalVariation({1.f, 0.f}, {1.f, 0.f}), 0.0);
    EXPECT_NEAR(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0, 1e-12);
    EXPECT_NEAR(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
    // Ranks with a tie: a = (1, 2, 2, 3) -> (1, 2.5, 2.5, 4); b = (1, 3, 2, 4) -> rho = 0.9487.
    EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 3, 2, 4}), 0.948683, 1e-5);
    EXPECT_EQ(spearman({1, 1, 1}, {1, 2, 3}), 0.0);
}

TEST(Faithfulness, ReportOnAHandSetPolicyFollowsTheBoxes) {
    auto dataset = openDataset("translated-fashion60");
    if (!dataset.ok()) GTEST_SKIP() << dataset.error();
    test::FixedCellModel model(60, 10, 55);  // always cell (5, 5): pixels [30, 36)^2, answers class 0
    FaithfulnessOptions o;
    o.limit = 6;
    o.saliencyImages = 2;
    o.fractions = {0.0, 0.5};
    auto r = measureFaithfulness(model, **dataset, Split::Test, o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->images, 6);
    EXPECT_EQ(r->rows, 10);
    double mass = 0, pointing = 0, area = 0;
    std::int64_t right = 0;
    for (int i = 0; i < 6; ++i) {
        const auto s = (*dataset)->sample(Split::Test, i);
        const Box cell{30, 30, 6, 6};
        mass += cell.intersectionArea(s.box) / 36.0;
        pointing += cell.intersectionArea(s.box) > 0;
        area += s.box.w * s.box.h / 3600.0;
        right += s.label == 0;
    }
    ASSERT_EQ(r->massPerStep.size(), 2u);
    EXPECT_NEAR(r->massPerStep[1], mass / 6, 1e-6);
    EXPECT_NEAR(r->pointingPerStep[0], pointing / 6, 1e-9);
    ASSERT_TRUE(r->uniformMass.has_value());
    EXPECT_NEAR(*r->uniformMass, area / 6, 1e-9);
    // Occlusion cannot change a fixed answer: no distance, the same accuracy at every fraction.
    ASSERT_EQ(r->deletion.size(), 2u);
    for (const auto& d : r->deletion) {
        EXPECT_DOUBLE_EQ(d.tvAttention, 0.0);
        EXPECT_DOUBLE_EQ(d.accuracyAttention, double(right) / 6);
        EXPECT_DOUBLE_EQ(d.accuracyRandom, double(right) / 6);
    }
    // A flat saliency map has no ranks: the correlation is not measured (null), not 0.
    EXPECT_EQ(r->correlationImages, 0);
    EXPECT_FALSE(r->rankCorrelation.has_value());
    // Calibration: per image and step, one cell at attention 1 (top bin), 99 at 0.
    EXPECT_EQ(r->reliability.back().count, 6 * 2);
    EXPECT_EQ(r->reliability.front().count, 6 * 2 * 99);
    EXPECT_DOUBLE_EQ(r->reliability.back().meanAttention, 1.0);
    const auto j = nlohmann::json::parse(faithfulnessToJson(*r));
    EXPECT_EQ(j["schema"], "saccade.faithfulness");
    EXPECT_EQ(j["caveat"], kAttentionCaveat);
    EXPECT_TRUE(j["rank_correlation"].is_null());
    EXPECT_EQ(j["boxed_images"], 6);
}
