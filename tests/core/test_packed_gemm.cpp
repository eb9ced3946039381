#include <gtest/gtest.h>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "attention/packed_linear.h"
#include "common/fast_math.h"
#include "common/packed_gemm.h"

using namespace saccade;

namespace {
struct CapLevel {
    explicit CapLevel(fast::Level level) : saved(fast::levelCap()) { fast::levelCap() = level; }
    ~CapLevel() { fast::levelCap() = saved; }
    fast::Level saved;
};
}  // namespace

// Every remainder of the 8-row blocks and 32-column panels, with and without bias, against ATen
// in double precision.
TEST(PackedGemm, LinearEqualsAtenAtEveryRowAndColumnRemainder) {
    if (!gemm::available()) GTEST_SKIP() << "no AVX-512 here: packedLinear is ATen's linear";
    torch::NoGradGuard noGrad;
    torch::manual_seed(3);
    for (const std::int64_t M : {1, 7, 8, 9, 63, 64, 65, 130})
        for (const std::int64_t N : {1, 15, 16, 17, 32, 33, 48, 816})
            for (const std::int64_t K : {1, 5, 128, 257}) {
                const auto x = torch::randn({M, K}), w = torch::randn({N, K}), b = torch::randn({N});
                PackedWeightScope scope;  // so that even one row takes the kernel
                ASSERT_TRUE(packedLinearRuns(x, w));
                const auto want = torch::nn::functional::linear(x.to(torch::kDouble), w.to(torch::kDouble), b.to(torch::kDouble));
                const auto got = packedLinear(x, w, b);
                ASSERT_EQ(got.sizes(), want.sizes());
                const double err = (got.to(torch::kDouble) - want).abs().max().item<double>();
                EXPECT_LT(err, 2e-6 * std::sqrt(double(K)) * 4) << M << "x" << N << "x" << K;
                const auto noBias = packedLinear(x, w) - torch::mm(x.to(torch::kDouble), w.to(torch::kDouble).t());
                EXPECT_LT(noBias.abs().max().item<double>(), 2e-6 * std::sqrt(double(K)) * 4);
            }
}

TEST(PackedGemm, MmTakesTransposedAndStridedOperandsAndAnyThreadCountGivesTheSameBits) {
    if (!gemm::available()) GTEST_SKIP() << "no AVX-512 here";
    torch::NoGradGuard noGrad;
    torch::manual_seed(4);
    const auto wide = torch::randn({300, 400});
    const auto x = wide.narrow(1, 7, 128);  // row stride 400: a slice of a wider tensor
    const auto b = torch::randn({128, 70});
    const auto want = torch::mm(x.to(torch::kDouble), b.to(torch::kDouble));
    const auto got = packedMm(x, b);
    EXPECT_LT((got.to(torch::kDouble) - want).abs().max().item<double>(), 1e-4);
    // A weight given transposed (a view with strides (1, N)) packs from its strides.
    const auto wT = torch::randn({70, 128}).t();
    EXPECT_LT((packedMm(x, wT).to(torch::kDouble) - torch::mm(x.to(torch::kDouble), wT.to(torch::kDouble))).abs().max().item<double>(), 1e-4);
    // A transposed left operand (strides (1, 300)) is read in place, and an expanded one (row
    // stride 0) repeats its row.
    const auto xT = torch::randn({128, 300}).t();
    EXPECT_LT((packedMm(xT, b).to(torch::kDouble) - torch::mm(xT.to(torch::kDouble), b.to(torch::kDouble))).abs().max().item<double>(), 1e-4);
    const auto row = torch::randn({1, 128}).expand({100, 128});
    const auto repeated = packedMm(row, b);
    EXPECT_TRUE(torch::equal(repeated[0], repeated[99]));
    EXPECT_LT((repeated - torch::mm(row.contiguous(), b)).abs().max().item<float>(), 1e-4f);
    const int threads = at::get_num_threads();
    at::set_num_threads(1);
    const auto one = packedMm(x, b);
    at::set_num_threads(2);
    const auto two = packedMm(x, b);
    at::set_num_threads(threads);
    EXPECT_TRUE(torch::equal(one, two));
}

TEST(PackedGemm, AScopePacksOnceAndPacksAgainWhenTheWeightChangesInPlace) {
    if (!gemm::available()) GTEST_SKIP() << "no AVX-512 here";
    torch::NoGradGuard noGrad;
    torch::manual_seed(5);
    auto w = torch::randn({40, 24});
    const auto x = torch::randn({10, 24});
    PackedWeightScope scope;
    const auto first = packedLinear(x, w);
    w.mul_(2.0f);  // in place: the version counter moves, so the stale pack is not used
    const auto second = packedLinear(x, w);
    EXPECT_LT((second - 2 * first).abs().max().item<float>(), 1e-4f);
    EXPECT_LT((second - torch::mm(x, w.t())).abs().max().item<float>(), 1e-4f);
}

TEST(PackedGemm, GradientsNarrowLevelsAndSmallUnscopedProductsGoToAten) {
    torch::manual_seed(6);
    const auto x = torch::randn({100, 16}), w = torch::randn({8, 16}, torch::requires_grad());
    // A weight that wants a gradient, under 64 rows: ATen's linear, differentiable.
    const auto few = torch::randn({40, 16});
    const auto y = packedLinear(few, w);
    EXPECT_TRUE(y.requires_grad());
    EXPECT_FALSE(packedLinearRuns(few, w));
    y.sum().backward();
    EXPECT_TRUE(torch::allclose(w.grad(), few.sum(0).expand({8, 16}), 1e-4, 1e-4));
    torch::NoGradGuard noGrad;
    const auto small = torch::randn({3, 16});
    EXPECT_FALSE(packedLinearRuns(small, w.detach()));  // unscoped, under 64 rows: packing costs more
    EXPECT_EQ(packedLinearRuns(x, w.detach()), gemm::available());
    {
        CapLevel cap(fast::Level::Avx2);
        EXPECT_FALSE(gemm::available());
        EXPECT_FALSE(packedLinearRuns(x, w.detach()));
        EXPECT_TRUE(torch::allclose(packedLinear(x, w.detach()), torch::mm(x, w.detach().t()), 1e-5, 1e-5));
    }
    EXPECT_FALSE(packedLinearRuns(x.to(torch::kDouble), w.detach().to(torch::kDouble)));
}

// With gradients wanted, 64 rows or more take one packed autograd node: values and all three
// gradients equal ATen's linear; fewer rows are ATen's own node.
TEST(PackedGemm, LinearGradientsEqualAtensFromSixtyFourRows) {
    torch::manual_seed(7);
    for (const std::int64_t M : {63, 64, 300}) {
        const auto x0 = torch::randn({M, 70}), w0 = torch::randn({40, 70}), b0 = torch::randn({40});
        const auto g = torch::randn({M, 40});
        auto x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
        const auto y = packedLinear(x, w, b);
        const bool packedNode = y.grad_fn() && y.grad_fn()->name().find("PackedLinear") != std::string::npos;
        EXPECT_EQ(packedNode, gemm::available() && M >= 64) << M << " rows: " << y.grad_fn()->name();
        y.backward(g);
        auto xr = x0.clone().requires_grad_(), wr = w0.clone().requires_grad_(), br = b0.clone().requires_grad_();
        torch::nn::functional::linear(xr, wr, br).backward(g);
        EXPECT_TRUE(torch::allclose(y, torch::nn::functional::linear(x0, w0, b0), 1e-4, 1e-4));
        EXPECT_TRUE(torch::allclose(x.grad(), xr.grad(), 1e-4, 1e-4));
        EXPECT_TRUE(torch::allclose(w.grad(), wr.grad(), 1e-4, 1e-3));
        EXPECT_TRUE(torch::allclose(b.grad(), br.grad(), 1e-4, 1e-4));
    }
    // A weight given as a strided slice (as the LSTM's input weight is narrowed) gets its gradient.
    const auto wide = torch::randn({40, 100}, torch::requires_grad());
    const auto x = torch::randn({200, 64});
    packedLinear(x, wide.narrow(1, 10, 64)).sum().backward();
    EXPECT_TRUE(torch::allclose(wide.grad().narrow(1, 10, 64), x.sum(0).expand({40, 64}), 1e-3, 1e-3));
    EXPECT_EQ(wide.grad().narrow(1, 0, 10).abs().sum().item<float>(), 0.0f);
    // a^T b as a weight's gradient
    torch::NoGradGuard noGrad;
    const auto a = torch::randn({500, 96}), c = torch::randn({500, 33});
    EXPECT_TRUE(torch::allclose(packedMmTN(a, c), torch::mm(a.t(), c), 1e-3, 1e-3));
}
