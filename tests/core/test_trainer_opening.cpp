// The opening every trainer shares (train/trainer_opening.h): option checks in order, the resumed
// config, a classifier's dataset, this rank's batch rows (repeated or fresh every pass), and the
// REINFORCE baseline.

#include <limits>

#include <gtest/gtest.h>

#include "temp_dir.h"
#include "train/trainer_opening.h"

using namespace saccade;

TEST(TrainerOpening, ChecksTheSharedOptionsThenTheFamilysInOrder) {
    test::TempDir dir;
    TrainCommonOptions o;
    o.out = dir.file("m.pt");
    o.iterations = 4;
    o.batch = 8;
    o.device = "cpu";
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(finiteNonNegative({0.0, 1.0}));
    EXPECT_FALSE(finiteNonNegative({0.0, -1.0}));
    EXPECT_FALSE(finiteNonNegative({nan}));
    EXPECT_EQ(openTrainer(o, "d", "test", {{true, "first"}, {false, "second"}, {false, "third"}}).error(), "second");
    auto bad = o;
    bad.batch = 0;
    EXPECT_EQ(openTrainer(bad, "d", "test", {{false, "first"}}).error(), "the batch size must be 1..65536");
    const auto opening = openTrainer(o, "d", "test", {{true, "first"}});
    ASSERT_TRUE(opening.ok()) << opening.error();
    EXPECT_EQ(opening->shard.offset, 0);
    EXPECT_EQ(opening->shard.size, 8);
    EXPECT_TRUE(opening->device.is_cpu());
    EXPECT_FALSE(opening->start.resumed);
    EXPECT_EQ(opening->start.dataset, "d");
    EXPECT_EQ(opening->start.total, 4);
}

TEST(TrainerOpening, AResumedConfigIsTheSavedOneAndItsErrorNamesTheCheckpoint) {
    TrainCommonOptions o;
    o.resume = "old.pt";
    RunStart start;
    auto parse = [](const std::string& json) -> Result<int> {
        if (json == "bad") return Error{"not a config"};
        return int(json.size());
    };
    EXPECT_EQ(*startingConfig(o, start, 7, parse), 7);
    start.resumed = true;
    start.configJson = "abc";
    EXPECT_EQ(*startingConfig(o, start, 7, parse), 3);
    start.configJson = "bad";
    EXPECT_EQ(startingConfig(o, start, 7, parse).error(), "cannot resume from 'old.pt': not a config");
}

TEST(TrainerOpening, ShardRowsFollowTheOrderAndFreshPassesMoveOnBySplitSize) {
    TrainingOrder order(4, 1), same(4, 1);
    const BatchShard shard{1, 2};
    // Global batch 1 of 4 rows: positions 4..7, this rank's 5 and 6 (the second pass).
    const auto repeat = shardIndices(order, 1, 4, shard);
    ASSERT_EQ(repeat.size(), 2u);
    EXPECT_EQ(repeat[0], same.at(5));
    EXPECT_EQ(repeat[1], same.at(6));
    const auto fresh = shardIndices(order, 1, 4, shard, Passes::Fresh);
    EXPECT_EQ(fresh[0], repeat[0] + 4);
    EXPECT_EQ(fresh[1], repeat[1] + 4);
    EXPECT_EQ(shardIndices(order, 0, 4, shard, Passes::Fresh), shardIndices(order, 0, 4, shard));
}

TEST(TrainerOpening, TheBaselineFollowsHardStepsAndResumesFromTheSidecar) {
    RunStart start;
    TrainLoopSetup setup;
    ReinforceBaseline fresh(start);
    fresh.wire(setup, true);
    ASSERT_NE(setup.baseline, nullptr);
    EXPECT_EQ(*setup.baseline, 0);
    TrainProgress p;
    p.reward = 2;
    setup.afterStep(p);
    EXPECT_EQ(*setup.baseline, 2);  // the first reward itself
    EXPECT_EQ(p.baseline, 2);
    p.reward = 1;
    setup.afterStep(p);
    EXPECT_DOUBLE_EQ(fresh.value(), 0.9 * 2 + 0.1 * 1);

    start.resumed = true;
    start.baseline = -3;
    TrainLoopSetup soft;
    ReinforceBaseline resumed(start);
    resumed.wire(soft, false);
    EXPECT_EQ(*soft.baseline, -3);
    p.reward = 5;
    soft.afterStep(p);
    EXPECT_EQ(*soft.baseline, -3);  // soft training leaves it
    EXPECT_EQ(p.baseline, -3);
}

TEST(TrainerOpening, AClassifierOpensItsDatasetWithShapeAndClassesOrSaysWhyNot) {
    RunStart start;
    start.dataset = "translated-digits60";  // procedural: no download
    start.seed = 3;
    auto digits = openClassificationData(start, "the patch classifier");
    ASSERT_TRUE(digits.ok()) << digits.error();
    EXPECT_EQ(digits->classes, 10);
    EXPECT_EQ(digits->channels, 1);
    EXPECT_EQ(digits->width, 60);
    EXPECT_EQ(digits->height, 60);
    EXPECT_EQ(digits->dataset->info().name, "translated-digits60");
    start.dataset = "scenes64";  // captioned scenes: words, not classes
    EXPECT_EQ(openClassificationData(start, "the RAM").error(),
              "dataset 'scenes64' has no classes: the RAM needs a classification dataset");
    start.dataset = "no-such-data";
    const auto missing = openClassificationData(start, "the RAM");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("no-such-data"), std::string::npos) << missing.error();
}
