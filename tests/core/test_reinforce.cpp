#include <gtest/gtest.h>

#include <torch/torch.h>

#include "attention/reinforce.h"

using namespace saccade;

TEST(Reinforce, MonteCarloGradientMatchesExactWithinStandardError) {
    ScoreFunctionCheckInput in;
    in.probs = {0.5, 0.3, 0.2};
    in.rewards = {1, 2, 5};
    in.samples = 20000;
    in.seed = 1;
    const auto c = checkScoreFunctionGradient(in);
    ASSERT_TRUE(c.ok()) << c.error();
    // Exact: p_j (r_j - E[r]) with E[r] = 0.5 + 0.6 + 1.0 = 2.1.
    EXPECT_NEAR(c->exact[0], 0.5 * (1 - 2.1), 1e-12);
    EXPECT_NEAR(c->exact[2], 0.2 * (5 - 2.1), 1e-12);
    for (size_t j = 0; j < 3; ++j) {
        EXPECT_LT(std::abs(c->meanNoBaseline[j] - c->exact[j]), 4 * c->stderrNoBaseline[j]) << j;
        EXPECT_LT(std::abs(c->meanBaseline[j] - c->exact[j]), 4 * c->stderrBaseline[j]) << j;
    }
    EXPECT_LT(c->maxAbsZ, 4.0);
    EXPECT_GT(c->varianceRatio, 1.0);
    std::cout << "[ measured ] variance ratio without/with baseline, rewards 1,2,5: "
              << c->varianceRatio << "\n";
    RecordProperty("variance_ratio_rewards_1_2_5", std::to_string(c->varianceRatio));
}

TEST(Reinforce, BaselineMattersMostWhenRewardsShareAnOffset) {
    ScoreFunctionCheckInput in;
    in.probs = {0.5, 0.3, 0.2};
    in.rewards = {11, 12, 15};  // the same problem plus 10: the exact gradient is unchanged
    in.samples = 20000;
    const auto c = checkScoreFunctionGradient(in);
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_NEAR(c->exact[0], 0.5 * (11 - 12.1), 1e-12);
    EXPECT_GT(c->varianceRatio, 10.0);
    EXPECT_LT(c->maxAbsZ, 4.0);
    std::cout << "[ measured ] variance ratio without/with baseline, rewards 11,12,15: "
              << c->varianceRatio << "\n";
}

TEST(Reinforce, LossGradientIsAdvantageTimesScore) {
    auto logits = torch::tensor({0.2, -0.1, 0.4}, torch::kFloat64).requires_grad_(true);
    const auto logp = torch::log_softmax(logits, 0);
    const auto chosen = torch::tensor({0, 2}, torch::kLong);
    const auto logProb = logp.index_select(0, chosen);
    const auto reward = torch::tensor({3.0, 1.0}, torch::kFloat64);
    reinforceLoss(logProb, reward, torch::tensor(2.0, torch::kFloat64)).backward();
    // -mean((r - b) grad log p): hand-computed with grad log p_i = e_i - p.
    const auto p = torch::softmax(logits.detach(), 0);
    auto expected = torch::zeros({3}, torch::kFloat64);
    expected -= 0.5 * (3.0 - 2.0) * (torch::one_hot(torch::tensor(0), 3).to(torch::kFloat64) - p);
    expected -= 0.5 * (1.0 - 2.0) * (torch::one_hot(torch::tensor(2), 3).to(torch::kFloat64) - p);
    EXPECT_TRUE(torch::allclose(logits.grad(), expected));
}

TEST(Reinforce, MovingAverageBaseline) {
    MovingAverageBaseline b(0.9);
    EXPECT_EQ(b.value(), 0.0);
    EXPECT_DOUBLE_EQ(b.update(10.0), 10.0);
    EXPECT_DOUBLE_EQ(b.update(0.0), 9.0);
    EXPECT_DOUBLE_EQ(b.update(1.0), 0.9 * 9.0 + 0.1);
}

TEST(Reinforce, BadInputs) {
    ScoreFunctionCheckInput in;
    in.probs = {0.5, 0.5};
    in.rewards = {1};
    EXPECT_NE(checkScoreFunctionGradient(in).error().find("length mismatch"), std::string::npos);
    in.rewards = {1, 2};
    in.probs = {0.7, 0.7};
    EXPECT_NE(checkScoreFunctionGradient(in).error().find("sum to 1"), std::string::npos);
    in.probs = {1.0, 0.0};
    EXPECT_NE(checkScoreFunctionGradient(in).error().find("> 0"), std::string::npos);
}
