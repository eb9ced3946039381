#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "attention/selection.h"

using namespace saccade;

namespace {

SelectionOptions rule(const std::string& spec) { return *parseSelectionRule(spec); }

// The worked example as a batch: values 2, 6, 10 with probabilities 0.5, 0.3, 0.2.
torch::Tensor exampleScores(int64_t batch) {
    return torch::tensor({0.5, 0.3, 0.2}, torch::kFloat64).log().unsqueeze(0).repeat({batch, 1});
}
torch::Tensor exampleValues(int64_t batch) {
    return torch::tensor({2.0, 6.0, 10.0}, torch::kFloat64).view({1, 3, 1}).repeat({batch, 1, 1});
}

}  // namespace

TEST(Selection, DrawCategoricalReproducesTheWorkedDraw) {
    const auto probs = torch::tensor({{0.5, 0.3, 0.2}});
    auto draw = [&](double u) {
        return drawCategorical(probs, torch::tensor({{u}}, torch::kFloat)).item<int64_t>();
    };
    EXPECT_EQ(draw(0.65), 1);  // u = 0.65 falls in [0.5, 0.8): value 6
    EXPECT_EQ(draw(0.0), 0);
    EXPECT_EQ(draw(0.49), 0);
    EXPECT_EQ(draw(0.5), 1);
    EXPECT_EQ(draw(0.81), 2);
    EXPECT_EQ(draw(0.99999), 2);
    const auto gaps = torch::tensor({{0.0, 0.5, 0.0, 0.5, 0.0}});
    for (double u : {0.0, 0.3, 0.5, 0.99999}) {
        const auto i = drawCategorical(gaps, torch::tensor({{u}}, torch::kFloat)).item<int64_t>();
        EXPECT_TRUE(i == 1 || i == 3) << "u=" << u << " chose zero-probability " << i;
    }
}

TEST(Selection, SoftIsTheExpectedContext) {
    Rng rng(1);
    auto scores = exampleScores(2).requires_grad_(true);
    const auto s = select(scores, exampleValues(2), rule("soft"), rng);
    EXPECT_NEAR(s.context[0][0].item<double>(), 4.8, 1e-12);
    EXPECT_EQ(s.indices.size(1), 0);
    EXPECT_EQ(s.logProb[0].item<double>(), 0.0);
    const double h = -(0.5 * std::log(0.5) + 0.3 * std::log(0.3) + 0.2 * std::log(0.2));
    EXPECT_NEAR(s.entropy[1].item<double>(), h, 1e-12);
    s.context.sum().backward();
    EXPECT_GT(scores.grad().abs().sum().item<double>(), 0);  // soft attention is differentiable
}

TEST(Selection, SampleFrequenciesMatchProbabilitiesAndSeedsRepeat) {
    const int64_t N = 60000;
    Rng a(7), b(7), c(8);
    const auto s1 = select(exampleScores(N), exampleValues(N), rule("sample"), a);
    const auto s2 = select(exampleScores(N), exampleValues(N), rule("sample"), b);
    const auto s3 = select(exampleScores(N), exampleValues(N), rule("sample"), c);
    EXPECT_TRUE(torch::equal(s1.indices, s2.indices));
    EXPECT_FALSE(torch::equal(s1.indices, s3.indices));
    ASSERT_EQ(s1.indices.sizes(), (std::vector<int64_t>{N, 1}));
    const auto counts = torch::bincount(s1.indices.squeeze(1), {}, 3).to(torch::kDouble) / N;
    const double p[] = {0.5, 0.3, 0.2};
    for (int i = 0; i < 3; ++i) {
        const double se = std::sqrt(p[i] * (1 - p[i]) / N);
        EXPECT_NEAR(counts[i].item<double>(), p[i], 4 * se) << "category " << i;
    }
    // The context is the selected value itself, never the 4.8 of soft attention.
    const auto ctx = s1.context.squeeze(1);
    EXPECT_TRUE(((ctx == 2) | (ctx == 6) | (ctx == 10)).all().item<bool>());
    EXPECT_NEAR(ctx.mean().item<double>(), 4.8, 4 * 3.1 / std::sqrt(double(N)));
    // log-prob of the choice is log p of the chosen index.
    const auto expected = torch::tensor({0.5, 0.3, 0.2}, torch::kFloat64).log().index_select(
        0, s1.indices.squeeze(1));
    EXPECT_TRUE(torch::allclose(s1.logProb, expected));
}

TEST(Selection, SampleNeverPicksMaskedLocations) {
    Rng rng(3);
    auto scores = torch::zeros({2000, 4});
    scores.index_put_({torch::indexing::Slice(), 1}, -INFINITY);
    const auto s = select(scores, torch::randn({2000, 4, 2}), rule("sample"), rng);
    EXPECT_FALSE((s.indices == 1).any().item<bool>());
    EXPECT_TRUE(torch::isfinite(s.entropy).all().item<bool>());
    EXPECT_NEAR(s.entropy[0].item<double>(), std::log(3.0), 1e-5);
}

TEST(Selection, ArgmaxIsDeterministic) {
    Rng a(1), b(99);
    const auto s = select(exampleScores(4), exampleValues(4), rule("argmax"), a);
    const auto t = select(exampleScores(4), exampleValues(4), rule("argmax"), b);
    EXPECT_TRUE(torch::equal(s.indices, t.indices));
    EXPECT_EQ(s.indices[0][0].item<int64_t>(), 0);
    EXPECT_EQ(s.context[0][0].item<double>(), 2.0);
    EXPECT_NEAR(s.logProb[0].item<double>(), std::log(0.5), 1e-12);
}

TEST(Selection, TopKRenormalisesTheChosenMass) {
    Rng rng(1);
    const auto s = select(exampleScores(1), exampleValues(1), rule("topk:2"), rng);
    EXPECT_EQ(s.indices[0][0].item<int64_t>(), 0);
    EXPECT_EQ(s.indices[0][1].item<int64_t>(), 1);
    EXPECT_NEAR(s.logProb[0].item<double>(), std::log(0.8), 1e-12);
    EXPECT_NEAR(s.context[0][0].item<double>(), (0.5 * 2 + 0.3 * 6) / 0.8, 1e-12);
    EXPECT_NEAR(s.weights[0][2].item<double>(), 0.0, 0);
    EXPECT_THROW(select(exampleScores(1), exampleValues(1), rule("topk:4"), rng), c10::Error);
}

TEST(Selection, KSampleAveragesKDraws) {
    Rng rng(5);
    const int64_t K = 4000;
    SelectionOptions o = rule("ksample:" + std::to_string(K));
    const auto s = select(exampleScores(1), exampleValues(1), o, rng);
    ASSERT_EQ(s.indices.sizes(), (std::vector<int64_t>{1, K}));
    const auto drawn = exampleValues(1)[0].squeeze(1).index_select(0, s.indices[0]);
    EXPECT_NEAR(s.context[0][0].item<double>(), drawn.mean().item<double>(), 1e-9);
    EXPECT_NEAR(s.context[0][0].item<double>(), 4.8, 4 * 3.1 / std::sqrt(double(K)));
    EXPECT_NEAR(s.weights.sum().item<double>(), 1.0, 1e-9);
    const auto logp = torch::tensor({0.5, 0.3, 0.2}, torch::kFloat64).log();
    EXPECT_NEAR(s.logProb[0].item<double>(), logp.index_select(0, s.indices[0]).sum().item<double>(),
                1e-6);
}

TEST(Selection, GumbelIsOneHotForwardWithAGradient) {
    Rng rng(2);
    const int64_t N = 40000;
    auto scores = exampleScores(N).requires_grad_(true);
    const auto s = select(scores, exampleValues(N), rule("gumbel:0.5"), rng);
    const auto w = s.weights.detach();
    EXPECT_TRUE(torch::allclose(w.sum(-1), torch::ones({N}, torch::kFloat64)));
    EXPECT_NEAR(std::get<0>(w.max(-1)).min().item<double>(), 1.0, 1e-9);  // forward pass is one-hot
    // Gumbel-max: argmax of log p + g is an exact sample of p.
    const auto counts = torch::bincount(s.indices.squeeze(1), {}, 3).to(torch::kDouble) / N;
    EXPECT_NEAR(counts[0].item<double>(), 0.5, 4 * std::sqrt(0.25 / N));
    EXPECT_NEAR(counts[2].item<double>(), 0.2, 4 * std::sqrt(0.16 / N));
    (s.context * s.context).sum().backward();
    EXPECT_GT(scores.grad().abs().sum().item<double>(), 0);  // straight-through gradient
}

TEST(Selection, SeededRulesRepeatAndDeterministicRulesIgnoreTheSeed) {
    for (const char* spec : {"soft", "sample", "argmax", "topk:2", "ksample:5", "gumbel:1"}) {
        Rng a(42), b(42);
        const auto scores = torch::randn({8, 6}, torch::TensorOptions().dtype(torch::kFloat32));
        const auto values = torch::randn({8, 6, 3});
        const auto s = select(scores, values, rule(spec), a);
        const auto t = select(scores, values, rule(spec), b);
        EXPECT_TRUE(torch::equal(s.indices, t.indices)) << spec;
        EXPECT_TRUE(torch::allclose(s.context, t.context)) << spec;
        EXPECT_EQ(s.context.sizes(), (std::vector<int64_t>{8, 3})) << spec;
        EXPECT_EQ(s.probs.sizes(), (std::vector<int64_t>{8, 6})) << spec;
        EXPECT_EQ(s.logProb.sizes(), (std::vector<int64_t>{8})) << spec;
        EXPECT_TRUE(torch::allclose(s.probs.sum(-1), torch::ones({8}))) << spec;
    }
}

TEST(Selection, BadInputsAreRefused) {
    Rng rng(1);
    auto nan = torch::zeros({1, 3});
    nan[0][1] = NAN;
    EXPECT_THROW(select(nan, torch::zeros({1, 3, 1}), rule("soft"), rng), c10::Error);
    EXPECT_THROW(select(torch::zeros({1, 3}), torch::zeros({1, 4, 1}), rule("soft"), rng),
                 c10::Error);
    EXPECT_THROW(select(torch::zeros({3}), torch::zeros({1, 3, 1}), rule("soft"), rng), c10::Error);
}

TEST(Selection, RuleSpellings) {
    EXPECT_EQ(rule("ksample").k, 10);
    EXPECT_EQ(rule("ksample:3").k, 3);
    EXPECT_EQ(rule("topk:2").rule, SelectionRule::TopK);
    EXPECT_DOUBLE_EQ(rule("gumbel:0.25").temperature, 0.25);
    EXPECT_EQ(selectionRuleSpec(rule("ksample:7")), "ksample:7");
    EXPECT_EQ(selectionRuleSpec(rule("gumbel:0.5")), "gumbel:0.5");
    EXPECT_NE(parseSelectionRule("ksample:0").error().find("K must be"), std::string::npos);
    EXPECT_NE(parseSelectionRule("gumbel:-1").error().find("temperature"), std::string::npos);
    EXPECT_NE(parseSelectionRule("argmax:2").error().find("takes no parameter"), std::string::npos);
    EXPECT_NE(parseSelectionRule("greedy").error().find("unknown selection rule"),
              std::string::npos);
}

TEST(Selection, SameSeedSameChoicesOnCpuAndCuda) {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
    const auto scores = torch::randn({64, 10});
    const auto values = torch::randn({64, 10, 4});
    for (const char* spec : {"sample", "ksample:5", "gumbel:0.5"}) {
        Rng a(9), b(9);
        const auto cpu = select(scores, values, rule(spec), a);
        const auto gpu = select(scores.cuda(), values.cuda(), rule(spec), b);
        EXPECT_TRUE(torch::equal(cpu.indices, gpu.indices.cpu())) << spec;
    }
}
