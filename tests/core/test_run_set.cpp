#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "trace/run_set.h"
#include "common/rng.h"
#include "data/dataset.h"
#include "models/attention_model.h"
#include "models/ram/ram_network.h"
#include "temp_dir.h"
#include "tiny_ram.h"
#include "io/checkpoint.h"
#include "test_device.h"

using namespace saccade;
namespace fs = std::filesystem;

namespace {

RunRecord gridRun(int label, std::vector<int> cells, std::vector<float> entropy) {
    RunRecord r;
    r.label = label;
    r.cells = std::move(cells);
    r.entropy = std::move(entropy);
    return r;
}

RunSet handMade() {
    RunSet set;
    set.steps = 2;
    set.gridRows = set.gridCols = 2;
    set.imageWidth = set.imageHeight = 20;
    set.classNames = {"a", "b", "c"};
    set.truth = 1;
    set.deterministic.output.label = 1;
    set.runs = {gridRun(1, {0, 3}, {1.0f, 0.5f}), gridRun(1, {0, 3}, {1.0f, 0.5f}), gridRun(2, {1, 3}, {2.0f, 0.5f}),
                gridRun(1, {0, 3}, {1.0f, 0.5f}), gridRun(0, {1, 2}, {2.0f, 1.5f})};
    return set;
}

std::string tinyRam(const saccade::test::TempDir& dir) {
    auto c = saccade::test::tinyRamConfig();
    c.glimpses = 4;
    c.locationStd = 0.3;
    return saccade::test::saveTinyRam(dir.file("ram.pt"), c, 2);
}

}  // namespace

TEST(RunStats, HistogramAgreementEntropyVisitsAndPathsOfAHandMadeSet) {
    const auto s = computeRunStats(handMade());
    EXPECT_EQ(s.runs, 5);
    EXPECT_EQ(s.labelCounts, (std::vector<int>{1, 3, 1}));
    EXPECT_DOUBLE_EQ(s.agreement, 0.6);
    ASSERT_TRUE(s.accuracy.has_value());
    EXPECT_DOUBLE_EQ(*s.accuracy, 0.6);
    EXPECT_NEAR(s.entropyMean[0], 1.4, 1e-6);
    EXPECT_NEAR(s.entropyStd[0], std::sqrt((3 * 0.16 + 2 * 0.36) / 5), 1e-6);
    EXPECT_NEAR(s.entropyMean[1], 0.7, 1e-6);
    EXPECT_EQ(s.visits[0], (std::vector<double>{0.6, 0.4, 0, 0}));
    EXPECT_EQ(s.visits[1], (std::vector<double>{0, 0, 0.2, 0.8}));
    ASSERT_EQ(s.paths.size(), 3u);
    EXPECT_EQ(s.paths[0].key, (std::vector<int>{0, 3}));
    EXPECT_EQ(s.paths[0].count, 3);
    EXPECT_EQ(s.paths[0].correct, 3);
    EXPECT_EQ(s.paths[0].firstRun, 0);
    EXPECT_EQ(s.paths[1].key, (std::vector<int>{1, 3}));  // ties: the earlier first run first
    EXPECT_EQ(s.paths[1].correct, 0);
    EXPECT_EQ(s.paths[2].firstRun, 4);
    EXPECT_EQ(s.paths[2].labels, (std::vector<int>{1, 0, 0}));
}

TEST(RunStats, ContinuousPointsAreBinnedOverTheImage) {
    RunSet set;
    set.steps = 1;
    set.imageWidth = set.imageHeight = 60;
    set.classNames = {"a", "b"};
    set.deterministic.output.label = 0;
    for (auto [x, y] : std::vector<std::pair<float, float>>{{5, 5}, {9.9f, 0}, {10, 59}, {60, 60}}) {
        RunRecord r;
        r.label = 0;
        r.points = {{x, y}};
        r.entropy = {0};
        set.runs.push_back(r);
    }
    const auto s = computeRunStats(set, 6);  // bins of 10 px
    EXPECT_EQ(s.visitCols, 6);
    EXPECT_DOUBLE_EQ(s.visits[0][0], 0.5);
    EXPECT_DOUBLE_EQ(s.visits[0][5 * 6 + 1], 0.25);
    EXPECT_DOUBLE_EQ(s.visits[0][35], 0.25);  // the far corner stays in the last bin
    EXPECT_FALSE(s.accuracy.has_value());
    EXPECT_EQ(s.paths.size(), 3u);
}

TEST(Rng, PerRowStreamsEqualSingleStreams) {
    auto rows = Rng::perRow({5, 9, 5});
    const auto u = rows.uniform({3, 4}, torch::kCPU), n = rows.normal({3, 2}, torch::kCPU);
    for (auto [row, seed] : std::vector<std::pair<int, std::uint64_t>>{{0, 5}, {1, 9}, {2, 5}}) {
        Rng one(seed);
        EXPECT_TRUE(torch::equal(u[row], one.uniform({1, 4}, torch::kCPU)[0]));
        EXPECT_TRUE(torch::equal(n[row], one.normal({1, 2}, torch::kCPU)[0]));
    }
    EXPECT_THROW(rows.uniform({2, 4}, torch::kCPU), c10::Error);
}

TEST(RamRunSets, RepeatPerSeedAndEqualSingleRuns) {
    saccade::test::TempDir dir("saccade-runs");
    auto model = loadAttentionModel(tinyRam(dir), test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    const auto sample = (*openDataset("digits28"))->sample(Split::Test, 3);
    const GroundTruth truth{sample.label, {sample.box}};
    auto a = (*model)->sampleRuns(sample.image, 40, 11, "d3", truth, 5);
    auto b = (*model)->sampleRuns(sample.image, 40, 11, "d3", truth, 5);
    ASSERT_TRUE(a.ok() && b.ok()) << a.error();
    for (size_t i = 0; i < 40; ++i) {
        EXPECT_EQ(a->runs[i].points, b->runs[i].points);
        EXPECT_EQ(a->runs[i].label, b->runs[i].label);
    }
    EXPECT_FALSE(a->soft.has_value());
    EXPECT_EQ(a->deterministicRule, "mean");
    EXPECT_EQ(a->ksample->rule, "ksample:5");
    // Run i is the sample trace with seed 11 + i.
    for (size_t i : {0u, 17u, 39u}) {
        auto single = (*model)->trace(sample.image, "sample", runSeed(11, i), "d3");
        ASSERT_TRUE(single.ok());
        EXPECT_EQ(a->runs[i].seed, 11 + i);
        EXPECT_EQ(a->runs[i].label, single->output.label);
        for (size_t t = 0; t < single->steps.size(); ++t) {
            EXPECT_NEAR(a->runs[i].points[t][0], (*single->steps[t].chosenPoint)[0], 1e-3);
            EXPECT_NEAR(a->runs[i].points[t][1], (*single->steps[t].chosenPoint)[1], 1e-3);
        }
    }
    // Different runs go different ways; the deterministic run does not depend on the seed.
    const auto stats = computeRunStats(*a);
    EXPECT_GT(stats.paths.size(), 1u);
    // The first glimpse has no policy: no entropy there (not a 0), a positive one after it.
    EXPECT_TRUE(std::isnan(stats.entropyMean[0]));
    EXPECT_TRUE(std::isnan(stats.entropyStd[0]));
    for (size_t t = 1; t < stats.entropyMean.size(); ++t) EXPECT_GT(stats.entropyMean[t], 0.0) << t;
    auto c = (*model)->sampleRuns(sample.image, 3, 99, "d3", truth, 2);
    ASSERT_TRUE(c.ok());
    for (size_t t = 0; t < a->deterministic.steps.size(); ++t)
        EXPECT_EQ(*c->deterministic.steps[t].chosenPoint, *a->deterministic.steps[t].chosenPoint);
    EXPECT_EQ(c->deterministic.output.probs, a->deterministic.output.probs);

    EXPECT_FALSE((*model)->sampleRuns(sample.image, 0, 1, "d3", truth).ok());
    EXPECT_FALSE((*model)->sampleRuns(sample.image, 10001, 1, "d3", truth).ok());
    auto cancelled = (*model)->sampleRuns(sample.image, 2500, 1, "d3", truth, 2, [](double) { return false; });
    ASSERT_FALSE(cancelled.ok());
    EXPECT_NE(cancelled.error().find("cancelled"), std::string::npos);
}

TEST(PatchRunSets, EqualSingleRunsAndIncludeSoftAttention) {
    auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("translated-fashion60");
    if (!dataset.ok()) GTEST_SKIP() << dataset.error();
    const auto sample = (*dataset)->sample(Split::Test, 12);
    const GroundTruth truth{sample.label, {sample.box}};
    auto set = (*model)->sampleRuns(sample.image, 200, 3, "t12", truth, 10);
    ASSERT_TRUE(set.ok()) << set.error();
    EXPECT_EQ(set->gridRows, 10);
    ASSERT_TRUE(set->soft.has_value());
    EXPECT_TRUE(set->soft->steps[0].chosenCells.empty());
    for (size_t i : {0u, 1u, 123u, 199u}) {
        auto single = (*model)->trace(sample.image, "sample", runSeed(3, i), "t12");
        ASSERT_TRUE(single.ok());
        EXPECT_EQ(set->runs[i].label, single->output.label) << "run " << i;
        for (size_t t = 0; t < single->steps.size(); ++t)
            EXPECT_EQ(set->runs[i].cells[t], single->steps[t].chosenCells.at(0)) << "run " << i << " step " << t;
        EXPECT_NEAR(set->runs[i].entropy[0], single->steps[0].entropy, 1e-4);
    }
    const auto stats = computeRunStats(*set);
    int total = 0;
    for (const auto& p : stats.paths) total += p.count;
    EXPECT_EQ(total, 200);
    const auto json = nlohmann::json::parse(runSetToJson(*set, stats));
    EXPECT_EQ(json["schema"], "saccade.runset");
    EXPECT_EQ(json["version"], 1);
    EXPECT_EQ(json["runs"].size(), 200u);
    EXPECT_EQ(json["stats"]["label_counts"].size(), 10u);
}
