// The training loop every family shares: budget checks, the schedule, evaluation cadence,
// checkpoints, cancel, and a loss that turns NaN.

#include <cmath>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "io/checkpoint.h"
#include "temp_dir.h"
#include "train/train_loop.h"

using namespace saccade;

TEST(TrainLoop, BudgetChecksRefuseNonFiniteAndMissingValues) {
    test::TempDir dir;
    const auto out = dir.file("m.pt");
    EXPECT_TRUE(checkTrainBudget(out, 8, 1e-3, 0, 10, false).ok());
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    EXPECT_NE(checkTrainBudget(out, 8, nan, 0, 10, false).error().find("learning rate"), std::string::npos);
    EXPECT_NE(checkTrainBudget(out, 8, inf, 0, 10, false).error().find("learning rate"), std::string::npos);
    EXPECT_NE(checkTrainBudget(out, 8, 1e-3, nan, 0, false).error().find("minutes"), std::string::npos);
    EXPECT_NE(checkTrainBudget(out, 0, 1e-3, 0, 10, false).error().find("batch"), std::string::npos);
    EXPECT_NE(checkTrainBudget(out, 8, 1e-3, 0, 0, false).error().find("budget"), std::string::npos);
    EXPECT_FALSE(checkTrainBudget(dir.file("missing/m.pt"), 8, 1e-3, 0, 10, false).ok());
    EXPECT_NE(checkTrainBudget(out, 1'000'000'000, 1e-3, 0, 10, false).error().find("1..65536"), std::string::npos);
    EXPECT_NE(checkTrainBudget(dir.path.string(), 8, 1e-3, 0, 10, false).error().find("is a folder"), std::string::npos);
}

namespace {

struct Fixture {
    test::TempDir dir;
    torch::nn::Linear net{2, 1};
    torch::optim::Adam adam{net->parameters(), torch::optim::AdamOptions(0.1)};
    TrainLoopSetup setup;
    Fixture() {
        setup.net = net.ptr().get();
        setup.optimizer = &adam;
        setup.info.modelType = "test";
        setup.info.configJson = "{}";
        setup.out = dir.file("m.pt");
        setup.totalIterations = 6;
        setup.evalEvery = 2;
        setup.lr = 0.1;
        setup.finalLrFraction = 0.1;
    }
};

}  // namespace

TEST(TrainLoop, RunsTheScheduleEvaluatesAndSaves) {
    Fixture f;
    std::vector<double> rates;
    int evaluations = 0;
    auto step = [&](std::int64_t, double lr, TrainProgress& p) {
        rates.push_back(lr);
        const auto loss = f.net(torch::ones({4, 2})).pow(2).mean();
        f.adam.zero_grad();
        loss.backward();  // the loop steps the optimizer
        p.loss = loss.item<double>();
    };
    auto evaluate = [&](TrainProgress& p) {
        ++evaluations;
        p.evalArgmax = 0.5;
        return nlohmann::json{{"eval_x", 0.5}};
    };
    auto summary = runTrainLoop(f.setup, step, evaluate, {});
    ASSERT_TRUE(summary.ok()) << summary.error();
    EXPECT_EQ(summary->iterations, 6);
    EXPECT_FALSE(summary->cancelled);
    EXPECT_EQ(evaluations, 3);
    ASSERT_EQ(rates.size(), 6u);
    EXPECT_DOUBLE_EQ(rates[0], 0.1);  // cosine from lr ...
    // ... at fraction 3/6: lr * (0.1 + 0.9 * 0.5 * (1 + cos(pi / 2)))
    EXPECT_NEAR(rates[3], 0.1 * (0.1 + 0.45), 1e-12);
    auto info = readCheckpointInfo(f.setup.out);
    ASSERT_TRUE(info.ok()) << info.error();
    EXPECT_EQ(info->iteration, 6);
    EXPECT_NE(info->metricsJson.find("eval_x"), std::string::npos);
}

TEST(TrainLoop, ANonFiniteLossStopsAndKeepsTheLastGoodCheckpoint) {
    Fixture f;
    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        p.loss = it == 4 ? std::numeric_limits<double>::quiet_NaN() : 1.0;
    };
    auto evaluate = [&](TrainProgress&) { return nlohmann::json::object(); };
    auto summary = runTrainLoop(f.setup, step, evaluate, {});
    ASSERT_FALSE(summary.ok());
    EXPECT_NE(summary.error().find("iteration 5"), std::string::npos) << summary.error();
    EXPECT_NE(summary.error().find("not finite"), std::string::npos) << summary.error();
    auto info = readCheckpointInfo(f.setup.out);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->iteration, 4);  // the last evaluation before the NaN
}

TEST(TrainLoop, CancelSavesAndSaysSo) {
    Fixture f;
    auto step = [&](std::int64_t, double, TrainProgress& p) { p.loss = 1.0; };
    auto evaluate = [&](TrainProgress&) { return nlohmann::json::object(); };
    auto summary = runTrainLoop(f.setup, step, evaluate, [](const TrainProgress& p) { return p.iteration < 3; });
    ASSERT_TRUE(summary.ok()) << summary.error();
    EXPECT_TRUE(summary->cancelled);
    EXPECT_EQ(summary->iterations, 3);
    EXPECT_EQ(readCheckpointInfo(f.setup.out)->iteration, 3);
}

// A run resumed with another --iterations anneals over another total, so its sidecar keeps the
// schedules it ran under before: what re-creates it is those runs, not one command.
TEST(TrainLoop, ASidecarKeepsTheSchedulesOfEarlierTotals) {
    CheckpointInfo first;
    first.iteration = 8;
    first.totalIterations = 8;
    EXPECT_TRUE(earlierSchedules(first, 8).empty());  // resumed to the same total: one schedule
    const auto second = earlierSchedules(first, 12);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0], (std::pair<std::int64_t, std::int64_t>{8, 8}));
    CheckpointInfo stopped;  // stopped at 10 of 12, then resumed to 16
    stopped.iteration = 10;
    stopped.totalIterations = 12;
    stopped.earlierSchedules = second;
    const auto third = earlierSchedules(stopped, 16);
    ASSERT_EQ(third.size(), 2u);
    EXPECT_EQ(third[1], (std::pair<std::int64_t, std::int64_t>{10, 12}));

    // What re-creates it: the first run to its total, then each resume to its own.
    auto own = third;
    own.emplace_back(16, 16);
    EXPECT_EQ(recreateRecipe("saccade-cli train patch --seed 5", "train patch", "m.pt", "", own),
              "saccade-cli train patch --seed 5 --iterations 8 --out m.pt; then saccade-cli train patch --resume m.pt "
              "--iterations 12 --out m.pt, stopped at iteration 10; then saccade-cli train patch --resume m.pt "
              "--iterations 16 --out m.pt");

    // The sidecar writes them and reads them back; a damaged list is one line.
    Fixture f;
    f.setup.info.earlierSchedules = third;
    auto step = [&](std::int64_t, double, TrainProgress& p) { p.loss = 1.0; };
    auto evaluate = [&](TrainProgress&) { return nlohmann::json::object(); };
    ASSERT_TRUE(runTrainLoop(f.setup, step, evaluate, {}).ok());
    auto info = readCheckpointInfo(f.setup.out);
    ASSERT_TRUE(info.ok()) << info.error();
    EXPECT_EQ(info->earlierSchedules, third);
    const auto sidecar = sidecarPath(f.setup.out);
    std::ifstream in(sidecar);
    auto j = nlohmann::json::parse(in);
    j["earlier_schedules"] = {{{"until", 8}}};
    std::ofstream(sidecar) << j.dump();
    EXPECT_EQ(readCheckpointInfo(f.setup.out).error(),
              "sidecar '" + sidecar + "': the field 'total' is missing");
}
