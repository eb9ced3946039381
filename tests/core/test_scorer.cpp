#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "attention/scorer.h"

using namespace saccade;

namespace {
constexpr int64_t B = 3, L = 5, D = 4;

Scorer makeScorer(ScorerKind kind, int64_t dq = D, int64_t dk = D) {
    torch::manual_seed(0);
    ScorerOptions o;
    o.kind = kind;
    o.queryDim = dq;
    o.keyDim = dk;
    o.hiddenDim = 6;
    return Scorer(o);
}
}  // namespace

TEST(Scorer, DotAndScaledDotMatchHandComputation) {
    torch::manual_seed(1);
    const auto q = torch::randn({B, D});
    const auto k = torch::randn({B, L, D});
    const auto dot = makeScorer(ScorerKind::Dot)->forward(q, k);
    const auto scaled = makeScorer(ScorerKind::ScaledDot)->forward(q, k);
    ASSERT_EQ(dot.sizes(), (std::vector<int64_t>{B, L}));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t l = 0; l < L; ++l) {
            const double expected = (q[b] * k[b][l]).sum().item<double>();
            EXPECT_NEAR(dot[b][l].item<double>(), expected, 1e-5);
            EXPECT_NEAR(scaled[b][l].item<double>(), expected / 2.0, 1e-5);  // sqrt(4) = 2
        }
}

TEST(Scorer, GeneralIsQTransposeWK) {
    auto scorer = makeScorer(ScorerKind::General, /*dq=*/3, /*dk=*/D);
    torch::manual_seed(2);
    const auto q = torch::randn({B, 3});
    const auto k = torch::randn({B, L, D});
    const auto scores = scorer->forward(q, k);
    const auto W = scorer->named_parameters()["W.weight"];  // [3, D]
    ASSERT_EQ(W.sizes(), (std::vector<int64_t>{3, D}));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t l = 0; l < L; ++l) {
            const double expected = torch::dot(q[b], torch::mv(W, k[b][l])).item<double>();
            EXPECT_NEAR(scores[b][l].item<double>(), expected, 1e-5);
        }
}

TEST(Scorer, AdditiveIsBahdanau) {
    auto scorer = makeScorer(ScorerKind::Additive, /*dq=*/3, /*dk=*/D);
    torch::manual_seed(3);
    const auto q = torch::randn({B, 3});
    const auto k = torch::randn({B, L, D});
    const auto scores = scorer->forward(q, k);
    auto params = scorer->named_parameters();
    const auto W = params["W.weight"], U = params["U.weight"], Ub = params["U.bias"],
               v = params["v.weight"];
    for (int64_t b = 0; b < B; ++b)
        for (int64_t l = 0; l < L; ++l) {
            const auto h = torch::tanh(torch::mv(W, q[b]) + torch::mv(U, k[b][l]) + Ub);
            EXPECT_NEAR(scores[b][l].item<double>(), torch::mv(v, h).item<double>(), 1e-5);
        }
    // Gradients reach every parameter.
    scores.sum().backward();
    for (const auto& p : scorer->parameters()) {
        ASSERT_TRUE(p.grad().defined());
        EXPECT_GT(p.grad().abs().sum().item<double>(), 0);
    }
}

TEST(Scorer, MaskGivesMinusInfinityAndRefusesEmptyRows) {
    for (auto kind : {ScorerKind::Additive, ScorerKind::Dot, ScorerKind::General,
                      ScorerKind::ScaledDot}) {
        auto scorer = makeScorer(kind);
        const auto q = torch::randn({B, D});
        const auto k = torch::randn({B, L, D});
        auto mask = torch::ones({B, L}, torch::kBool);
        mask.index_put_({0, 2}, false);
        const auto s = scorer->forward(q, k, mask);
        EXPECT_TRUE(std::isinf(s[0][2].item<float>()) && s[0][2].item<float>() < 0);
        EXPECT_TRUE(torch::isfinite(s[1]).all().item<bool>());
        auto empty = torch::ones({B, L}, torch::kBool);
        empty[1].fill_(false);
        EXPECT_THROW(scorer->forward(q, k, empty), c10::Error) << scorerKindName(kind);
    }
}

TEST(Scorer, ShapeMismatchesAreRefused) {
    auto dot = makeScorer(ScorerKind::Dot);
    EXPECT_THROW(dot->forward(torch::randn({B, D + 1}), torch::randn({B, L, D})), c10::Error);
    EXPECT_THROW(dot->forward(torch::randn({B, D}), torch::randn({B + 1, L, D})), c10::Error);
    EXPECT_THROW(dot->forward(torch::randn({B, D}), torch::randn({L, D})), c10::Error);
    EXPECT_THROW(makeScorer(ScorerKind::Dot, 3, 4), c10::Error);
    EXPECT_THROW(makeScorer(ScorerKind::ScaledDot, 3, 4), c10::Error);
    try {
        dot->forward(torch::randn({B, D + 1}), torch::randn({B, L, D}));
    } catch (const c10::Error& e) {
        EXPECT_NE(std::string(e.what_without_backtrace()).find("scorer expects 4"),
                  std::string::npos);
    }
}

TEST(Scorer, NamesRoundTrip) {
    for (auto kind : {ScorerKind::Additive, ScorerKind::Dot, ScorerKind::General,
                      ScorerKind::ScaledDot})
        EXPECT_EQ(*parseScorerKind(scorerKindName(kind)), kind);
    EXPECT_NE(parseScorerKind("cosine").error().find("unknown scorer 'cosine'"), std::string::npos);
}
