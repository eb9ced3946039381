// Attention regions (mass in a box, the pointing game, chosen regions) on hand-made maps, and a
// boundary sweep on a hand-set policy whose hits and misses are known.

#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "metrics/attention_regions.h"
#include "analysis/runs/boundary_sweep.h"
#include "fixed_cell_model.h"
#include "render/sweep_render.h"

using namespace saccade;

TEST(AttentionRegions, MassInBoxAndPointingOnHandMadeMaps) {
    // A 2 x 2 grid over 10 x 10 pixels: cells of 5 px, probabilities 0.1, 0.2, 0.3, 0.4.
    TraceStep step;
    step.grid = GridDistribution{2, 2, {0.1f, 0.2f, 0.3f, 0.4f}};
    EXPECT_EQ(cellBox(2, 2, 10, 10, 3), (Box{5, 5, 5, 5}));
    EXPECT_EQ(cellBox(3, 3, 10, 10, 1), (Box{3, 0, 3, 3}));  // 10*1/3 = 3 .. 10*2/3 = 6
    // The whole image holds all the mass; the bottom-right cell its 0.4; a box over the right
    // half of the bottom-left cell and the left half of the bottom-right one 0.3/2 + 0.4/2.
    EXPECT_NEAR(stepMassInBox(step, 10, 10, Box{0, 0, 10, 10}), 1.0, 1e-6);
    EXPECT_NEAR(stepMassInBox(step, 10, 10, Box{5, 5, 5, 5}), 0.4, 1e-6);
    EXPECT_NEAR(stepMassInBox(step, 10, 10, Box{2.5, 5, 5, 5}), 0.15 + 0.2, 1e-6);
    // Pointing: the most attended cell is the bottom-right one.
    EXPECT_TRUE(pointsAt(step, 10, 10, Box{6, 6, 2, 2}));
    EXPECT_FALSE(pointsAt(step, 10, 10, Box{0, 0, 4, 4}));
    // A Gaussian at (20, 20) with sd 2: half its mass lies right of x = 20; +-1 sd holds 68.3% per axis.
    TraceStep ram;
    ram.gaussian = GaussianPolicy{20, 20, 2, 2};
    EXPECT_NEAR(stepMassInBox(ram, 60, 60, Box{20, 0, 40, 60}), 0.5, 1e-9);
    EXPECT_NEAR(stepMassInBox(ram, 60, 60, Box{18, 18, 4, 4}), 0.682689 * 0.682689, 1e-5);
    EXPECT_TRUE(pointsAt(ram, 60, 60, Box{19, 19, 2, 2}));
    // Its mass on a 3 x 3 grid of 20-px cells concentrates around the corner (20, 20).
    const auto spread = attentionOnGrid(ram, 60, 60, 3, 3);
    EXPECT_NEAR(spread[0] + spread[1] + spread[3] + spread[4], 1.0, 1e-6);
    EXPECT_NEAR(spread[4], 0.25, 1e-6);
    // Chosen regions: the chosen cells, or the finest glimpse.
    step.chosenCells = {1};
    ASSERT_EQ(chosenRegions(step, 10, 10).size(), 1u);
    EXPECT_EQ(chosenRegions(step, 10, 10)[0], (Box{5, 0, 5, 5}));
    ram.glimpses = {{1, Box{0, 0, 24, 24}}, {0, Box{6, 6, 12, 12}}};
    EXPECT_EQ(chosenRegions(ram, 60, 60), std::vector<Box>{(Box{6, 6, 12, 12})});
    // Hits: half of a small object inside the region, or half of the region on a large object.
    EXPECT_DOUBLE_EQ(hitOverlap(Box{0, 0, 4, 4}, Box{2, 0, 10, 10}), 0.5);
    EXPECT_DOUBLE_EQ(hitOverlap(Box{0, 0, 20, 20}, Box{15, 0, 10, 10}), 0.5);
}

TEST(BoundarySweep, AProbeAtAKnownOffsetHitsOrMissesTheFixedCell) {
    // 60 x 60 images, a 10 x 10 grid of 6-px cells; the policy always takes cell (5, 5), pixels
    // [30, 36) on both axes. Grid lines every 6 px: the anchor nearest the centre is 30.
    test::FixedCellModel model(60, 10, 55);
    auto cell = modelCellSize(model);
    ASSERT_TRUE(cell.ok());
    EXPECT_EQ(*cell, 6);
    SweepOptions o;
    o.probe.canvas = 60;
    o.probe.cellSize = 6;
    o.probe.objectSize = 6;
    o.probe.object = ProbeObject::Blob;
    o.probe.dxMin = -6;
    o.probe.dxMax = 6;
    o.runs = 5;
    auto r = runBoundarySweep(model, o, nullptr);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->anchorX, 30);
    ASSERT_EQ(r->points.size(), 13u);
    for (const auto& p : r->points) {
        // The blob spans [30 + dx, 36 + dx) x [30, 36): inside the cell for |dx| <= 3 by at least half.
        const double overlap = std::max(0, 6 - std::abs(p.dx)) / 6.0;
        EXPECT_NEAR(p.deterministicCoverage, overlap, 1e-9) << p.dx;
        EXPECT_EQ(p.deterministicHit, overlap >= 0.5) << p.dx;
        EXPECT_DOUBLE_EQ(p.hitRate, overlap >= 0.5 ? 1.0 : 0.0) << p.dx;
        EXPECT_NEAR(p.mass, overlap, 1e-6) << p.dx;  // all attention on the cell, uniform in it
        EXPECT_EQ(p.sampleRuns, 5);
        EXPECT_EQ(p.truth, -1);
        EXPECT_LT(p.sampleAccuracy, 0);  // a blob has no class
    }
    EXPECT_NEAR(meanSweepValue(*r, SweepMetric::HitRate), 7.0 / 13, 1e-9);
    EXPECT_LT(meanSweepValue(*r, SweepMetric::SampleAccuracy), 0);
    // The worst positions by hit rate are the misses, farthest first by order of the sweep.
    const auto worst = worstPoints(*r, SweepMetric::HitRate, 3);
    ASSERT_EQ(worst.size(), 3u);
    for (size_t i : worst) EXPECT_GT(std::abs(r->points[i].dx), 3);
    const auto j = nlohmann::json::parse(sweepToJson(*r));
    EXPECT_EQ(j["schema"], "saccade.sweep");
    EXPECT_EQ(j["points"].size(), 13u);
    EXPECT_TRUE(j["points"][0]["sample_accuracy"].is_null());
    // The map has one square per offset, coloured by the metric: a hit is bright, a miss dark.
    const Image map = renderSweepMap(*r, SweepMetric::HitRate, 10);
    EXPECT_EQ(map.channels, 3);
    auto brightness = [&](int dx) {
        const int x = 46 + (dx + 6) * 10 + 5, y = 30 + 5;
        return map.at(x, y, 0) + map.at(x, y, 1) + map.at(x, y, 2);
    };
    EXPECT_GT(brightness(0), 600);
    EXPECT_LT(brightness(6), 60);
    EXPECT_TRUE(edgeOnGridLine(-6, 6) && edgeOnGridLine(0, 6) && !edgeOnGridLine(-5, 6));
    // Default ranges: two cells each way, narrowed to keep the object on the canvas. With 12-px
    // cells the anchor nearest 30 is 36: a 20-px object fits up to dx = 60 - 20 - 36 = 4.
    ProbeOptions wide;
    wide.canvas = 60;
    wide.cellSize = 12;
    wide.objectSize = defaultProbeSize(12, ProbeObject::Item);
    EXPECT_EQ(wide.objectSize, 20);
    EXPECT_EQ(defaultProbeSize(6, ProbeObject::Blob), 6);
    setDefaultSweepRanges(wide);
    EXPECT_EQ(wide.dxMin, -12);
    EXPECT_EQ(wide.dxMax, 4);
    EXPECT_EQ(wide.dyMax, 4);
    EXPECT_TRUE(makeProbes(wide, nullptr).ok() || wide.object == ProbeObject::Item);
    wide.object = ProbeObject::Blob;
    EXPECT_TRUE(makeProbes(wide, nullptr).ok());
    // A canvas that is not the model's input size is refused.
    o.probe.canvas = 28;
    EXPECT_FALSE(runBoundarySweep(model, o, nullptr).ok());
}
