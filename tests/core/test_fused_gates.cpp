// The fused loops against the ATen operations they replace: the GRU and LSTM gates, the additive
// scores and the batched row products (values, gradients, padding, saturation, NaN, strided and
// expanded inputs), under every instruction set the loops are compiled for that this processor
// runs; the inference step of the GRU from a table, with its extra rows and bias; and the
// step-by-step bidirectional GRU against torch::nn::GRU, packed and unpadded, with and without
// autograd.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <torch/nn/utils/rnn.h>
#include <torch/torch.h>

#include "attention/additive_scores.h"
#include "attention/batched_products.h"
#include "common/fast_math.h"
#include "models/seq/gru_encoder.h"
#include "models/rnn_gates.h"

namespace saccade {
namespace {

float maxDiff(const torch::Tensor& x, const torch::Tensor& y) { return (x - y).abs().max().item<float>(); }

/// Whether `out` came from the fused loop's own autograd node (and not the ATen fallback).
bool fusedNode(const torch::Tensor& out, const std::string& function) {
    return out.grad_fn() && out.grad_fn()->name().find(function) != std::string::npos;
}

struct GateGrads {
    torch::Tensor out, da, db, dh;
};

template <typename F>
GateGrads gateGrads(F gates, const torch::Tensor& a0, const torch::Tensor& b0, const torch::Tensor& h0,
                    const torch::Tensor& keep, const torch::Tensor& upstream) {
    auto a = a0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true), h = h0.clone().requires_grad_(true);
    auto out = gates(a, b, h, keep);
    (out * upstream).sum().backward();
    return {out.detach(), a.grad(), b.grad(), h.grad()};
}

TEST(FastMath, TanhAndSigmoidStayWithinHalfAMicro) {
    // Every float step of 2^-12 on [-20, 20], against the exact values in double.
    double tanhErr = 0, sigmoidErr = 0, worstAt = 0;
    for (double x = -20.0; x <= 20.0; x += 1.0 / 4096) {
        const float f = static_cast<float>(x);
        const double e = std::abs(double(fast::tanh(f)) - std::tanh(double(f)));
        if (e > tanhErr) tanhErr = e, worstAt = x;
        sigmoidErr = std::max(sigmoidErr, std::abs(double(fast::sigmoid(f)) - 1.0 / (1.0 + std::exp(-double(f)))));
        ASSERT_EQ(fast::tanh(-f), -fast::tanh(f)) << x;  // odd, bit for bit
        ASSERT_LE(std::abs(fast::tanh(f)), 1.0f) << x;
        ASSERT_GE(fast::sigmoid(f), 0.0f) << x;
        ASSERT_LE(fast::sigmoid(f), 1.0f) << x;
    }
    EXPECT_LT(tanhErr, 5e-7) << "worst at " << worstAt;
    // Every float where the rational meets 1 (the clamp is at 8): at most one ulp above it where
    // the compiler fuses no multiply-add (1.00000012 at two inputs just below 8).
    for (float f = 7.0f; f <= 9.0f; f = std::nextafter(f, 10.0f))
        ASSERT_LE(fast::tanh(f), 1.0f + std::numeric_limits<float>::epsilon()) << f;
    EXPECT_LT(sigmoidErr, 3e-7);
    // Small arguments keep their relative precision: tanh(x) = x (1 - x^2 / 3 + ...).
    for (const float x : {1e-30f, 1e-7f, 3e-4f})
        EXPECT_NEAR(fast::tanh(x) / x, std::tanh(double(x)) / x, 2e-7) << x;
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_NEAR(fast::tanh(inf), 1.0, 3e-7);
    EXPECT_LE(fast::tanh(inf), 1.0f);
    EXPECT_EQ(fast::tanh(-inf), -fast::tanh(inf));
    EXPECT_EQ(fast::tanh(0.0f), 0.0f);
    EXPECT_EQ(fast::sigmoid(0.0f), 0.5f);
    EXPECT_NEAR(fast::sigmoid(inf), 1.0, 2e-7);
    EXPECT_NEAR(fast::sigmoid(-inf), 0.0, 2e-7);
    EXPECT_GE(fast::sigmoid(-inf), 0.0f);
    EXPECT_TRUE(std::isnan(fast::tanh(std::nanf(""))));
    EXPECT_TRUE(std::isnan(fast::sigmoid(std::nanf(""))));
}

TEST(GruGates, FusedLoopEqualsAtenOperationsAndTheirGradients) {
    torch::manual_seed(3);
    const int B = 5, H = 13;  // 13: the vector loop's tail is exercised too
    const auto a = torch::randn({B, 3 * H}) * 3, b = torch::randn({B, 3 * H}) * 3, h = torch::randn({B, H});
    const auto keep = torch::tensor({1.0f, 0.0f, 1.0f, 1.0f, 0.0f});
    const auto upstream = torch::randn({B, H});
    for (const bool padded : {false, true}) {
        const auto k = padded ? keep : torch::Tensor();
        const auto fused = gateGrads([](auto... x) { return gruGates(x...); }, a, b, h, k, upstream);
        const auto ref = gateGrads([](auto... x) { return gruGatesReference(x...); }, a, b, h, k, upstream);
        EXPECT_LT(maxDiff(fused.out, ref.out), 2e-6) << "padded " << padded;
        EXPECT_LT(maxDiff(fused.da, ref.da), 1e-5);
        EXPECT_LT(maxDiff(fused.db, ref.db), 1e-5);
        EXPECT_LT(maxDiff(fused.dh, ref.dh), 1e-5);
        if (padded) {
            EXPECT_EQ(fused.out[1].abs().max().item<float>(), 0.0f);  // a padded row leaves a zero state
            EXPECT_EQ(fused.dh[4].abs().max().item<float>(), 0.0f);   // and passes no gradient back
        }
    }
    EXPECT_TRUE(fusedNode(gruGates(a.clone().requires_grad_(true), b, h), "GruGatesFunction"));
    // Without autograd the same loop runs without saving anything.
    torch::NoGradGuard noGrad;
    EXPECT_LT(maxDiff(gruGates(a, b, h), gruGatesReference(a, b, h)), 2e-6);
}

TEST(GruGates, SaturatesLikeAtenAndKeepsNaN) {
    auto a = torch::zeros({2, 3 * 8}), b = torch::zeros({2, 3 * 8});
    const auto h = torch::full({2, 8}, 0.25f);
    a.index_put_({0}, 200.0f);   // r = z = 1, n = tanh(400): h' = h
    a.index_put_({1}, -200.0f);  // r = z = 0, n = tanh(-200) = -1: h' = -1
    const auto out = gruGates(a, b, h);
    EXPECT_TRUE(torch::allclose(out, gruGatesReference(a, b, h), 0, 1e-6));
    EXPECT_FLOAT_EQ(out[0][0].item<float>(), 0.25f);
    EXPECT_FLOAT_EQ(out[1][0].item<float>(), -1.0f);
    a[0][5] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(std::isnan(gruGates(a, b, h)[0][5].item<float>()));
}

TEST(GruGates, StridedOrDoubleInputsTakeTheAtenPath) {
    // Float but strided: the loops would read the wrong rows, so ATen runs (and agrees).
    const auto wide = torch::randn({4, 6 * 3});
    const auto a = wide.narrow(1, 0, 9), b = wide.narrow(1, 9, 9);
    const auto h = torch::randn({4, 3});
    EXPECT_TRUE(torch::equal(gruGates(a, b, h), gruGatesReference(a, b, h)));
    EXPECT_FALSE(fusedNode(gruGates(a.clone().requires_grad_(true).narrow(1, 0, 9), b, h), "GruGatesFunction"));
    const auto d = torch::randn({4, 9}, torch::kDouble), hd = torch::randn({4, 3}, torch::kDouble);
    EXPECT_TRUE(torch::equal(gruGates(d, d, hd), gruGatesReference(d, d, hd)));
}

TEST(LstmGates, FusedLoopEqualsAtenOperationsAndTheirGradients) {
    torch::manual_seed(4);
    const int B = 3, H = 11;
    const auto x0 = torch::randn({B, 4 * H}) * 3, c0 = torch::randn({B, H});
    const auto dh = torch::randn({B, H}), dc = torch::randn({B, H});
    auto run = [&](auto gates, bool useC) {
        auto x = x0.clone().requires_grad_(true), c = c0.clone().requires_grad_(true);
        const auto [h, next] = gates(x, c);
        ((h * dh).sum() + (useC ? (next * dc).sum() : torch::zeros({}))).backward();
        return std::vector<torch::Tensor>{h.detach(), next.detach(), x.grad(), c.grad()};
    };
    for (const bool useC : {true, false}) {  // c' unused: its gradient arrives as zeros
        const auto fused = run([](auto... a) { return lstmGates(a...); }, useC);
        const auto ref = run([](auto... a) { return lstmGatesReference(a...); }, useC);
        for (std::size_t i = 0; i < fused.size(); ++i) EXPECT_LT(maxDiff(fused[i], ref[i]), i < 2 ? 2e-6 : 1e-5) << i;
    }
    EXPECT_TRUE(fusedNode(lstmGates(x0.clone().requires_grad_(true), c0).first, "LstmGatesFunction"));
    // Saturated gates: i = f = o = 1, g = 1 gives c' = c + 1 and h' = tanh(c + 1).
    torch::NoGradGuard noGrad;
    const auto [h, next] = lstmGates(torch::full({1, 4 * 2}, 100.0f), torch::tensor({{0.5f, -3.0f}}));
    EXPECT_FLOAT_EQ(next[0][0].item<float>(), 1.5f);
    EXPECT_NEAR(h[0][1].item<float>(), std::tanh(-2.0f), 1e-6);
}

TEST(AdditiveScores, FusedLoopEqualsAtenOperationsAndTheirGradients) {
    torch::manual_seed(6);
    const int B = 3, L = 5, A = 37;  // 37: two groups of sixteen and a tail
    const auto q0 = torch::randn({B, A}), k0 = torch::randn({B, L, A}) * 2, v0 = torch::randn({1, A});
    const auto upstream = torch::randn({B, L});
    auto run = [&](auto scores) {
        auto q = q0.clone().requires_grad_(true), k = k0.clone().requires_grad_(true), v = v0.clone().requires_grad_(true);
        const auto out = scores(q, k, v);
        (out * upstream).sum().backward();
        return std::vector<torch::Tensor>{out.detach(), q.grad(), k.grad(), v.grad()};
    };
    const auto fused = run([](auto... a) { return additiveScores(a...); });
    const auto ref = run([](auto... a) { return additiveScoresReference(a...); });
    for (std::size_t i = 0; i < fused.size(); ++i) EXPECT_LT(maxDiff(fused[i], ref[i]), 1e-5) << i;
    EXPECT_TRUE(fusedNode(additiveScores(q0.clone().requires_grad_(true), k0, v0), "AdditiveScoresFunction"));
    // By hand: one score of two features.
    torch::NoGradGuard noGrad;
    const auto one = additiveScores(torch::tensor({{0.5f, -1.0f}}), torch::tensor({{{0.25f, 2.0f}}}), torch::tensor({2.0f, 3.0f}));
    EXPECT_NEAR(one.item<float>(), 2 * std::tanh(0.75f) + 3 * std::tanh(1.0f), 1e-6);
    // Keys shared by every row through expand() (episodes of one image) give the same scores.
    const auto shared = k0.narrow(0, 0, 1).expand({B, L, A});
    EXPECT_LT(maxDiff(additiveScores(q0, shared, v0), additiveScoresReference(q0, shared.contiguous(), v0)), 1e-5);
    // Strided keys take ATen; expanded keys with gradients are copied and give bmm's gradients.
    const auto strided = torch::randn({B, A, L}).transpose(1, 2);
    EXPECT_LT(maxDiff(additiveScores(q0, strided, v0), additiveScoresReference(q0, strided, v0)), 1e-5);
    {
        torch::AutoGradMode grad(true);
        auto q = q0.clone().requires_grad_(true), q2 = q0.clone().requires_grad_(true);
        (additiveScores(q, shared, v0) * upstream).sum().backward();
        (additiveScoresReference(q2, shared, v0) * upstream).sum().backward();
        EXPECT_LT(maxDiff(q.grad(), q2.grad()), 1e-5);
    }
    // NaN stays NaN; shapes are checked.
    auto bad = q0.clone();
    bad[1][3] = std::numeric_limits<float>::quiet_NaN();
    const auto withNaN = additiveScores(bad, k0, v0);
    EXPECT_TRUE(std::isnan(withNaN[1][0].item<float>()));
    EXPECT_FALSE(std::isnan(withNaN[0][0].item<float>()));
    EXPECT_THROW(additiveScores(q0, k0.narrow(2, 0, 4), v0), c10::Error);
}

TEST(BatchedProducts, LoopsEqualBmmWithExpandedRowsAndTheirGradients) {
    torch::manual_seed(8);
    const int B = 4, R = 6, C = 21;
    const auto rows = torch::randn({B, R, C}), vec = torch::randn({B, C}), weights = torch::softmax(torch::randn({B, R}), 1);
    torch::NoGradGuard noGrad;
    ASSERT_TRUE(batchedProductsFused(rows, vec));
    EXPECT_LT(maxDiff(rowsDotVector(rows, vec), torch::bmm(rows, vec.unsqueeze(2)).squeeze(2)), 1e-5);
    EXPECT_LT(maxDiff(weightedRows(weights, rows), torch::bmm(weights.unsqueeze(1), rows).squeeze(1)), 1e-5);
    // By hand: [1 2; 3 4] . [1, -1] = [-1, -1]; weights [0.25, 0.75] give [2.5, 3.5].
    const auto m = torch::tensor({{{1.0f, 2.0f}, {3.0f, 4.0f}}});
    EXPECT_TRUE(torch::equal(rowsDotVector(m, torch::tensor({{1.0f, -1.0f}})), torch::tensor({{-1.0f, -1.0f}})));
    EXPECT_TRUE(torch::equal(weightedRows(torch::tensor({{0.25f, 0.75f}}), m), torch::tensor({{2.5f, 3.5f}})));
    // One image's rows shared by every episode.
    const auto shared = rows.narrow(0, 0, 1).expand({B, R, C});
    ASSERT_TRUE(batchedProductsFused(shared, vec));
    EXPECT_LT(maxDiff(weightedRows(weights, shared), torch::bmm(weights.unsqueeze(1), shared.contiguous()).squeeze(1)), 1e-5);
    // Strided rows take bmm.
    EXPECT_FALSE(batchedProductsFused(rows.transpose(1, 2), weights));
    // With gradients: the loops' own nodes, with bmm's gradients for every input, and for rows
    // shared through expand() (their gradient sums over the batch).
    torch::AutoGradMode grad(true);
    const auto upC = torch::randn({B, C}), upR = torch::randn({B, R});
    for (const bool expanded : {false, true}) {
        const auto base = expanded ? rows.narrow(0, 0, 1) : rows;
        auto r1 = base.clone().requires_grad_(true), r2 = base.clone().requires_grad_(true);
        auto w1 = weights.clone().requires_grad_(true), w2 = weights.clone().requires_grad_(true);
        auto v1 = vec.clone().requires_grad_(true), v2 = vec.clone().requires_grad_(true);
        auto view = [&](const torch::Tensor& t) { return expanded ? t.expand({B, R, C}) : t; };
        const auto sum = weightedRows(w1, view(r1)), dot = rowsDotVector(view(r1), v1);
        EXPECT_TRUE(fusedNode(sum, "WeightedRowsFunction"));
        EXPECT_TRUE(fusedNode(dot, "RowsDotVectorFunction"));
        ((sum * upC).sum() + (dot * upR).sum()).backward();
        const auto sumRef = torch::bmm(w2.unsqueeze(1), view(r2)).squeeze(1);
        const auto dotRef = torch::bmm(view(r2), v2.unsqueeze(2)).squeeze(2);
        ((sumRef * upC).sum() + (dotRef * upR).sum()).backward();
        EXPECT_LT(maxDiff(sum, sumRef) + maxDiff(dot, dotRef), 1e-5) << "expanded " << expanded;
        EXPECT_LT(maxDiff(w1.grad(), w2.grad()), 1e-5) << "expanded " << expanded;
        EXPECT_LT(maxDiff(v1.grad(), v2.grad()), 1e-5) << "expanded " << expanded;
        EXPECT_LT(maxDiff(r1.grad(), r2.grad()), 1e-5) << "expanded " << expanded;
    }
    // Only the weights need a gradient.
    const auto w = weights.clone().requires_grad_(true);
    weightedRows(w, rows).sum().backward();
    EXPECT_LT(maxDiff(w.grad(), rows.sum(2)), 1e-5);
}

/// Caps the compiled variants at one level for its lifetime.
struct LevelCap {
    explicit LevelCap(fast::Level level) : saved(fast::levelCap()) { fast::levelCap() = level; }
    ~LevelCap() { fast::levelCap() = saved; }
    fast::Level saved;
};

TEST(TableRows, EqualIndexSelectScaleAndAddAtEveryLevelAndRefuseRowsOutsideTheTables) {
    torch::manual_seed(12);
    const auto a = torch::randn({5, 37}), b = torch::randn({9, 37}), bias = torch::randn({37});
    const auto ia = torch::tensor({4, 0, 4, 2}, torch::kLong), ib = torch::tensor({8, 3, 0, 8}, torch::kLong);
    const auto scale = torch::rand({4, 1});
    const auto expected = a.index_select(0, ia) + scale * b.index_select(0, ib);
    int levels = 0;
    for (const auto level : {fast::Level::Plain, fast::Level::Avx2, fast::Level::Avx512}) {
        if (static_cast<int>(level) > static_cast<int>(fast::detectedLevel())) continue;
        LevelCap cap(level);
        ++levels;
        auto out = torch::full({4, 37}, 99.0f);
        tableRowsInto(a, ia, b, ib, scale, {}, out);
        EXPECT_LT(maxDiff(out, expected), 1e-6) << static_cast<int>(level);
        tableRowsInto(a, ia, b, ib, scale, bias, out);
        EXPECT_LT(maxDiff(out, expected + bias), 1e-6) << static_cast<int>(level);
    }
    EXPECT_GE(levels, 1);
    auto out = torch::empty({4, 37});
    EXPECT_THROW(tableRowsInto(a, torch::tensor({0, 1, 5, 2}, torch::kLong), b, ib, scale, {}, out), c10::Error);
    EXPECT_THROW(tableRowsInto(a, ia, b, torch::tensor({0, -1, 2, 3}, torch::kLong), scale, {}, out), c10::Error);
    EXPECT_THROW(tableRowsInto(a, ia, b, ib, scale, {}, const_cast<torch::Tensor&>(a)), c10::Error);  // wrong shape
}

TEST(FastLevels, EveryCompiledVariantThisProcessorRunsMatchesAten) {
    torch::manual_seed(10);
    const int B = 4, H = 21, L = 3, A = 37;
    const auto a = torch::randn({B, 3 * H}) * 3, b = torch::randn({B, 3 * H}) * 3, h = torch::randn({B, H});
    const auto keep = torch::tensor({1.0f, 0.0f, 1.0f, 1.0f}), upstream = torch::randn({B, H});
    const auto x = torch::randn({B, 4 * H}) * 3, c = torch::randn({B, H});
    const auto q = torch::randn({B, A}), keys = torch::randn({B, L, A}) * 2, v = torch::randn({A});
    const auto weights = torch::softmax(torch::randn({B, L}), 1);
    const auto ref = gateGrads([](auto... y) { return gruGatesReference(y...); }, a, b, h, keep, upstream);
    int levels = 0;
    for (const auto level : {fast::Level::Plain, fast::Level::Avx2, fast::Level::Avx512}) {
        if (static_cast<int>(level) > static_cast<int>(fast::detectedLevel())) continue;
        LevelCap cap(level);
        ASSERT_EQ(fast::level(), level);
        ++levels;
        SCOPED_TRACE(static_cast<int>(level));
        const auto fused = gateGrads([](auto... y) { return gruGates(y...); }, a, b, h, keep, upstream);
        EXPECT_LT(maxDiff(fused.out, ref.out), 2e-6);
        EXPECT_LT(maxDiff(fused.da, ref.da), 1e-5);
        EXPECT_LT(maxDiff(fused.dh, ref.dh), 1e-5);
        auto xg = x.clone().requires_grad_(true), xr = x.clone().requires_grad_(true);
        const auto [lh, lc] = lstmGates(xg, c);
        const auto [rh, rc] = lstmGatesReference(xr, c);
        EXPECT_LT(maxDiff(lh, rh) + maxDiff(lc, rc), 2e-6);
        (lh * upstream).sum().backward();
        (rh * upstream).sum().backward();
        EXPECT_LT(maxDiff(xg.grad(), xr.grad()), 1e-5);
        auto qg = q.clone().requires_grad_(true), qr = q.clone().requires_grad_(true);
        const auto sf = additiveScores(qg, keys, v), sr = additiveScoresReference(qr, keys, v);
        EXPECT_LT(maxDiff(sf, sr), 1e-5);
        sf.sum().backward();
        sr.sum().backward();
        EXPECT_LT(maxDiff(qg.grad(), qr.grad()), 1e-5);
        // The row products' backward loops (the outer product among them).
        auto kf = keys.clone().requires_grad_(true), kr = keys.clone().requires_grad_(true);
        auto wf = weights.clone().requires_grad_(true), wr = weights.clone().requires_grad_(true);
        (weightedRows(wf, kf).sum() + rowsDotVector(kf, q).pow(2).sum()).backward();
        (torch::bmm(wr.unsqueeze(1), kr).squeeze(1).sum() + torch::bmm(kr, q.unsqueeze(2)).squeeze(2).pow(2).sum()).backward();
        EXPECT_LT(maxDiff(kf.grad(), kr.grad()) + maxDiff(wf.grad(), wr.grad()), 1e-4);
        torch::NoGradGuard noGrad;
        EXPECT_LT(maxDiff(rowsDotVector(keys, q), torch::bmm(keys, q.unsqueeze(2)).squeeze(2)), 1e-5);
        EXPECT_LT(maxDiff(weightedRows(weights, keys), torch::bmm(weights.unsqueeze(1), keys).squeeze(1)), 1e-5);
        // The inference step from a table, with extra rows and a bias.
        const auto table = torch::randn({6, 3 * H}), ids = torch::tensor({5, 0, 2, 5}, torch::kLong);
        const auto extra = torch::randn({B, 3 * H}), bias = torch::randn({3 * H});
        auto out = torch::empty({B, H});
        gruGatesFromTable({table, ids, extra, b, bias, h, keep}, out);
        EXPECT_LT(maxDiff(out, gruGatesReference(table.index_select(0, ids) + extra, b + bias, h, keep)), 2e-6);
    }
    EXPECT_GE(levels, 1);
}

TEST(GruGates, TableStepAddsExtraRowsAndBiasAndWritesStridedRows) {
    torch::manual_seed(11);
    const int V = 7, B = 5, H = 19;
    const auto table = torch::randn({V, 3 * H}), ids = torch::tensor({3, 0, 6, 3, 1}, torch::kLong);
    const auto wide = torch::randn({B, 3 * H + 9});  // extra rows as a slice of a wider product
    const auto extra = wide.narrow(1, 0, 3 * H);
    const auto b = torch::randn({B, 3 * H}), bias = torch::randn({3 * H});
    const auto hWide = torch::randn({B, 2 * H}), h = hWide.narrow(1, H, H);
    const auto keep = torch::tensor({1.0f, 1.0f, 0.0f, 1.0f, 1.0f});
    torch::NoGradGuard noGrad;
    auto outWide = torch::zeros({B, 2 * H});
    auto out = outWide.narrow(1, 0, H);
    gruGatesFromTable({table, ids, extra, b, bias, h, keep}, out);
    const auto expected = gruGatesReference(table.index_select(0, ids) + extra, b + bias, h, keep);
    EXPECT_LT(maxDiff(out, expected), 2e-6);
    EXPECT_EQ(outWide.narrow(1, H, H).abs().max().item<float>(), 0.0f);  // only the slice is written
    EXPECT_EQ(out[2].abs().max().item<float>(), 0.0f);                   // a padded row
    // Without extra rows and bias: the table and b alone.
    gruGatesFromTable({table, ids, {}, b, {}, h, {}}, out);
    EXPECT_LT(maxDiff(out, gruGatesReference(table.index_select(0, ids), b, h)), 2e-6);
    EXPECT_THROW(gruGatesFromTable({table, ids, extra, b, bias.narrow(0, 0, H), h, {}}, out), c10::Error);
    EXPECT_THROW(gruGatesFromTable({table, ids, extra.narrow(0, 0, 2), b, bias, h, {}}, out), c10::Error);
}

TEST(BidirectionalGru, EqualsTorchGruPackedAndUnpaddedWithTheSameGradients) {
    torch::manual_seed(5);
    const int V = 9, E = 6, H = 5, S = 7;
    torch::nn::GRU gru(torch::nn::GRUOptions(E, H).batch_first(true).bidirectional(true));
    torch::nn::Embedding embed(V, E);
    const auto source = torch::randint(0, V, {4, S}, torch::kLong);
    for (const bool padded : {false, true}) {
        const auto lengths = padded ? torch::tensor({7, 3, 5, 1}, torch::kLong) : torch::full({4}, S, torch::kLong);
        const auto mask = torch::arange(S).unsqueeze(0) < lengths.unsqueeze(1);
        const auto weight = torch::randn({4, S, 2 * H});
        // ATen: packed when padded, as the encoder did before.
        gru->zero_grad();
        embed->zero_grad();
        torch::Tensor expected;
        if (padded) {
            namespace rnn = torch::nn::utils::rnn;
            const auto packed = rnn::pack_padded_sequence(embed(source), lengths, true, false);
            expected = std::get<0>(rnn::pad_packed_sequence(std::get<0>(gru->forward_with_packed_input(packed)), true, 0.0, S));
        } else {
            expected = std::get<0>(gru(embed(source)));
        }
        (expected * weight).sum().backward();
        std::vector<torch::Tensor> expectedGrads;
        for (const auto& p : gru->parameters()) expectedGrads.push_back(p.grad().clone());
        const auto expectedEmbedGrad = embed->weight.grad().clone();
        gru->zero_grad();
        embed->zero_grad();
        const auto out = bidirectionalGru(gru, embed->weight, source, padded ? mask : torch::Tensor());
        (out * weight).sum().backward();
        ASSERT_EQ(out.sizes(), expected.sizes());
        EXPECT_LT(maxDiff(out, expected), 2e-6) << "padded " << padded;
        if (padded) {
            EXPECT_EQ(out[3].narrow(0, 1, S - 1).abs().max().item<float>(), 0.0f);
        }
        const auto grads = gru->parameters();
        for (std::size_t i = 0; i < grads.size(); ++i) EXPECT_LT(maxDiff(grads[i].grad(), expectedGrads[i]), 1e-5) << i;
        EXPECT_LT(maxDiff(embed->weight.grad(), expectedEmbedGrad), 1e-5);
        // Without autograd: the table read inside the loop and states written into the output.
        torch::NoGradGuard noGrad;
        EXPECT_LT(maxDiff(bidirectionalGru(gru, embed->weight, source, padded ? mask : torch::Tensor()), expected), 2e-6)
            << "inference, padded " << padded;
    }
    {
        torch::NoGradGuard noGrad;
        auto out = torch::empty({4, H});
        const auto table = torch::randn({V, 3 * H});
        EXPECT_THROW(gruGatesFromTable({table, torch::tensor({0, 1, V, 2}, torch::kLong), {}, torch::zeros({4, 3 * H}), {},
                                        torch::zeros({4, H}), {}},
                                       out),
                     c10::Error);  // an id past the table
    }
    torch::nn::GRU twoLayers(torch::nn::GRUOptions(E, H).batch_first(true).bidirectional(true).num_layers(2));
    EXPECT_THROW(bidirectionalGru(twoLayers, embed->weight, source, {}), c10::Error);
}

}  // namespace
}  // namespace saccade
