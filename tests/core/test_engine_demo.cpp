#include <gtest/gtest.h>

#include <algorithm>

#include "attention/engine_demo.h"
#include "test_device.h"

using namespace saccade;

TEST(EngineDemo, SameSeedSameTraceOtherSeedOtherTrace) {
    EngineDemoOptions o;
    o.rule = "sample";
    o.seed = 3;
    o.device = test::testDevice();
    const auto a = runEngineDemo(o), b = runEngineDemo(o);
    o.seed = 4;
    const auto c = runEngineDemo(o);
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(traceToJson(*a), traceToJson(*b));
    EXPECT_NE(traceToJson(*a), traceToJson(*c));
    EXPECT_EQ(a->steps.size(), 4u);
    EXPECT_EQ(a->steps[0].grid->probs.size(), 36u);
    EXPECT_EQ(a->rule, "sample");
    EXPECT_EQ(a->device, test::testDevice());
}

TEST(EngineDemo, ArgmaxChoosesTheMostProbableCellAndFindsPlantedTargets) {
    EngineDemoOptions o;
    o.rule = "argmax";
    o.scorer = "scaled-dot";
    o.steps = 10;
    o.device = test::testDevice();
    const auto t = runEngineDemo(o);
    ASSERT_TRUE(t.ok()) << t.error();
    int hits = 0;
    for (size_t i = 0; i < t->steps.size(); ++i) {
        const auto& s = t->steps[i];
        const auto& p = s.grid->probs;
        const int best = static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
        ASSERT_EQ(s.chosenCells.size(), 1u);
        EXPECT_EQ(s.chosenCells[0], best);
        const auto& box = t->groundTruth->boxes[i];
        const int target = int(box.y / box.h) * 6 + int(box.x / box.w);
        hits += best == target;
    }
    // A query planted near its key scores it highest far more often than chance (1 in 36).
    EXPECT_GE(hits, 7);
}

TEST(EngineDemo, EveryScorerAndRuleRuns) {
    for (const char* scorer : {"additive", "dot", "general", "scaled-dot"})
        for (const char* rule : {"soft", "sample", "argmax", "topk:3", "ksample:5", "gumbel:0.5"}) {
            EngineDemoOptions o;
            o.scorer = scorer;
            o.rule = rule;
            o.device = test::testDevice();
            const auto t = runEngineDemo(o);
            ASSERT_TRUE(t.ok()) << scorer << "/" << rule << ": " << t.error();
            const size_t expected = std::string(rule) == "soft" ? 0
                                    : std::string(rule) == "topk:3" ? 3
                                    : std::string(rule) == "ksample:5" ? 5 : 1;
            EXPECT_EQ(t->steps[0].chosenCells.size(), expected) << rule;
        }
}

TEST(EngineDemo, BadOptionsAreClearErrors) {
    EngineDemoOptions o;
    o.scorer = "cosine";
    EXPECT_NE(runEngineDemo(o).error().find("unknown scorer"), std::string::npos);
    o = {};
    o.rule = "topk:99";
    EXPECT_NE(runEngineDemo(o).error().find("more cells than the grid has"), std::string::npos);
    o = {};
    o.grid = 0;
    EXPECT_NE(runEngineDemo(o).error().find("grid must be"), std::string::npos);
    o = {};
    o.device = "tpu";
    EXPECT_NE(runEngineDemo(o).error().find("unknown device"), std::string::npos);
}
