// Cost accounting: FLOPs counted from layer shapes match the formulas, stages are timed, and
// the select variant's hard rule shows the saving it claims.

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "models/cost_profile.h"
#include "test_device.h"

using namespace saccade;

namespace {

const StageCost* stageOf(const RuleCost& c, const std::string& name) {
    for (const auto& s : c.stages)
        if (s.stage == name) return &s;
    return nullptr;
}

}  // namespace

TEST(CostProfile, KnownLayersMatchTheFormula) {
    // A 5x5 convolution from 1 to 16 channels with 60x60 outputs: 2 * 1 * 16 * 25 * 3600.
    EXPECT_DOUBLE_EQ(convFlops(1, 16, 5, 5, 60, 60), 2880000.0);
    EXPECT_DOUBLE_EQ(linearFlops(432, 128), 110592.0);
}

TEST(CostProfile, StagesOfThePatchModelAndTheRamAreCountedAndTimed) {
    CostOptions o;
    o.model = SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt";
    o.batch = 4;
    o.repeats = 2;
    o.device = test::testDevice();
    auto r = profileCost(o);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_EQ(r->rules.size(), 8u);  // dense and select, each soft, argmax, sample, gumbel:1
    const auto& denseSample = r->rules[2];
    EXPECT_EQ(denseSample.variant, "dense");
    EXPECT_EQ(denseSample.rule, "sample");
    // The dense encoder of a 60x60 input, layer by layer: 5x5 conv 1->16 on 60x60, 3x3 conv
    // 16->32 on 30x30, 3x3 convs 32->64 and 64->64 on the 10x10 cells.
    const auto* encoder = stageOf(denseSample, "encoder");
    ASSERT_NE(encoder, nullptr);
    const double expected = convFlops(1, 16, 5, 5, 60, 60) + convFlops(16, 32, 3, 3, 30, 30) +
                            convFlops(32, 64, 3, 3, 10, 10) + convFlops(64, 64, 3, 3, 10, 10);
    EXPECT_NEAR(encoder->mflopsPerImage, expected / 1e6, 1e-9);
    EXPECT_GT(encoder->msPerImage, 0.0);
    for (const char* stage : {"scoring", "selection", "recurrent + classifier"})
        EXPECT_NE(stageOf(denseSample, stage), nullptr) << stage;
    EXPECT_TRUE(denseSample.allFeaturesFirst);
    EXPECT_NE(denseSample.note.find("saved nothing"), std::string::npos);
    // The select variant's hard rule runs the patch network on T windows only: fewer FLOPs.
    const auto& selectSample = r->rules[6];
    EXPECT_EQ(selectSample.variant, "select");
    EXPECT_FALSE(selectSample.allFeaturesFirst);
    EXPECT_LT(selectSample.mflopsPerImage, denseSample.mflopsPerImage);
    EXPECT_NE(stageOf(selectSample, "patch network"), nullptr);
    // Its soft rule needs every window: more patch-network FLOPs than all of the hard rule.
    EXPECT_GT(stageOf(r->rules[4], "patch network")->mflopsPerImage, selectSample.mflopsPerImage);
    EXPECT_EQ(r->rules[4].rule, "soft");
    // Gumbel weights every cell: no saving in the select variant either.
    EXPECT_TRUE(r->rules[7].allFeaturesFirst);
    EXPECT_EQ(r->rules[7].rule, "gumbel:1");
    EXPECT_NEAR(stageOf(r->rules[7], "patch network")->mflopsPerImage, stageOf(r->rules[4], "patch network")->mflopsPerImage, 1e-9);
    EXPECT_NE(r->rules[5].note.find("% of the dense variant's FLOPs"), std::string::npos);  // select / argmax

    o.model = SACCADE_SAMPLES_DIR "/models/ram-translated-fashion60.pt";
    auto ram = profileCost(o);
    ASSERT_TRUE(ram.ok()) << ram.error();
    ASSERT_EQ(ram->rules.size(), 3u);  // mean, sample, random
    // Six glimpses of 3 x 12 x 12 values: h_g (432 -> 128), h_l (2 -> 128), and both to g (128 -> 256).
    const auto* glimpse = stageOf(ram->rules[0], "glimpse network");
    ASSERT_NE(glimpse, nullptr);
    EXPECT_NEAR(glimpse->mflopsPerImage,
                6 * (linearFlops(432, 128) + linearFlops(2, 128) + 2 * linearFlops(128, 256)) / 1e6, 1e-9);
    const auto j = nlohmann::json::parse(costReportToJson(*ram));
    EXPECT_EQ(j["schema"], "saccade.cost");
    EXPECT_EQ(j["rules"].size(), 3u);
    o.model = "/nonexistent.pt";
    EXPECT_FALSE(profileCost(o).ok());
}

TEST(CostProfile, ReportsProgressAndCancels) {
    CostOptions o;
    o.model = SACCADE_SAMPLES_DIR "/models/ram-fashion28.pt";
    o.batch = 2;
    o.repeats = 2;
    o.device = test::testDevice();
    std::vector<double> seen;
    auto r = profileCost(o, [&](double f) {
        seen.push_back(f);
        return true;
    });
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_EQ(seen.size(), 6u);  // 3 rules x 2 timed passes
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    int calls = 0;
    auto cancelled = profileCost(o, [&](double) { return ++calls < 2; });
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error(), "the cost measurement was cancelled");
    EXPECT_EQ(calls, 2);
}
