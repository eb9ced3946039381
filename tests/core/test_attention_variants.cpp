// The attention variants against exact attention on small inputs: the exact ones equal it
// (forward and gradients), each patterned one equals full attention restricted to its pattern,
// each one's output is its own weights times the values, and the limits where a variant becomes
// exact (window >= N, one block, k = M) give exact attention.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "attention/attention_variants.h"

namespace saccade {
namespace {

struct Qkv {
    torch::Tensor q, k, v, keep;
};

Qkv randomQkv(std::int64_t n, std::int64_t d = 8, bool masked = false, std::uint64_t seed = 1) {
    torch::manual_seed(seed);
    Qkv x{torch::randn({2, 3, n, d}, torch::kDouble), torch::randn({2, 3, n, d}, torch::kDouble),
          torch::randn({2, 3, n, d + 2}, torch::kDouble), {}};
    if (masked) {
        x.keep = torch::ones({2, n}, torch::kBool);
        x.keep.index_put_({1, torch::indexing::Slice(n - 3, n)}, false);
        x.keep.index_put_({0, 2}, false);
    }
    return x;
}

torch::Tensor exact(const Qkv& x) {
    auto s = torch::matmul(x.q, x.k.transpose(-2, -1)) / std::sqrt(double(x.q.size(3)));
    if (x.keep.defined()) s = s.masked_fill(x.keep.logical_not().view({2, 1, 1, -1}), -INFINITY);
    return torch::matmul(torch::softmax(s, -1), x.v);
}

double maxDiff(const torch::Tensor& a, const torch::Tensor& b) { return (a - b).abs().max().item<double>(); }

/// Small settings for every variant at once: window, block, summary, k, features and tile.
VariantOptions smallOptions(std::int64_t window, std::int64_t block, std::int64_t summary, std::int64_t topK,
                            std::int64_t features, std::int64_t tile = VariantOptions{}.tile) {
    VariantOptions o;
    o.window = window;
    o.block = block;
    o.summary = summary;
    o.topK = topK;
    o.features = features;
    o.tile = tile;
    return o;
}

/// d f / d inputs[which][flat] by central differences (step 1e-6, float64 inputs).
template <typename F>
double centralDifference(F f, const std::vector<torch::Tensor>& inputs, int which, std::int64_t flat) {
    auto plus = inputs, minus = inputs;
    plus[which] = plus[which].clone();
    minus[which] = minus[which].clone();
    plus[which].view(-1)[flat] += 1e-6;
    minus[which].view(-1)[flat] -= 1e-6;
    return (f(plus) - f(minus)) / 2e-6;
}

TEST(AttentionVariants, NamesRoundTripAndUnknownNamesListTheChoices) {
    for (auto v : allAttentionVariants()) EXPECT_EQ(*parseAttentionVariant(attentionVariantName(v)), v);
    EXPECT_EQ(*parseAttentionVariant("memory-efficient"), AttentionVariant::MemoryEfficient);
    const auto bad = parseAttentionVariant("flash");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("block_sparse"), std::string::npos);
    EXPECT_EQ(allAttentionVariants().size(), 7u);
}

TEST(AttentionVariants, MemoryEfficientEqualsFullWithOddTilesAndMasks) {
    for (bool masked : {false, true}) {
        const auto x = randomQkv(37, 8, masked);
        VariantOptions o;
        o.tile = 5;  // 37 = 7 * 5 + 2: a partial tile in both directions
        const auto out = attendVariant(AttentionVariant::MemoryEfficient, x.q, x.k, x.v, x.keep, o);
        EXPECT_LT(maxDiff(out, exact(x)), 1e-12) << "masked " << masked;
        EXPECT_LT(maxDiff(attendVariant(AttentionVariant::Full, x.q, x.k, x.v, x.keep, o), exact(x)), 1e-12);
    }
}

TEST(AttentionVariants, MemoryEfficientGradientsEqualAutogradOfExactAttention) {
    const auto base = randomQkv(23, 6, true, 4);
    auto grads = [&](bool efficient) {
        auto q = base.q.clone().requires_grad_(), k = base.k.clone().requires_grad_(), v = base.v.clone().requires_grad_();
        VariantOptions o;
        o.tile = 4;
        const auto out = efficient ? attendVariant(AttentionVariant::MemoryEfficient, q, k, v, base.keep, o)
                                   : exact({q, k, v, base.keep});
        const auto w = torch::linspace(-1, 1, out.numel(), torch::kDouble).view(out.sizes());
        (out * w).sum().backward();
        return std::vector<torch::Tensor>{q.grad(), k.grad(), v.grad()};
    };
    const auto a = grads(true), b = grads(false);
    for (int i = 0; i < 3; ++i) EXPECT_LT(maxDiff(a[i], b[i]), 1e-10) << "input " << i;
    // A masked key gets no gradient.
    EXPECT_EQ(a[1].index({1, torch::indexing::Slice(), 22}).abs().max().item<double>(), 0.0);
}

TEST(AttentionVariants, GradcheckOfTheTiledBackwardPass) {
    const auto x = randomQkv(7, 3, true, 9);
    VariantOptions o;
    o.tile = 3;
    auto q = x.q.clone().requires_grad_(), k = x.k.clone().requires_grad_(), v = x.v.clone().requires_grad_();
    const auto out = attendVariant(AttentionVariant::MemoryEfficient, q, k, v, x.keep, o);
    const auto g = torch::autograd::grad({out.pow(2).sum()}, {q, k, v});
    // Central differences on a few entries of each input.
    const auto loss = [&](const std::vector<torch::Tensor>& in) {
        return attendVariant(AttentionVariant::MemoryEfficient, in[0], in[1], in[2], x.keep, o).pow(2).sum().item<double>();
    };
    for (int which = 0; which < 3; ++which)
        for (std::int64_t flat : {0, 11, 40})
            EXPECT_NEAR(g[which].view(-1)[flat].item<double>(), centralDifference(loss, {x.q, x.k, x.v}, which, flat), 1e-6)
                << "input " << which << " entry " << flat;
}

TEST(AttentionVariants, EachOutputIsItsOwnWeightsTimesTheValues) {
    auto o = smallOptions(3, 4, 2, 5, 16, 6);
    o.seed = 7;
    for (bool masked : {false, true}) {
        const auto x = randomQkv(19, 8, masked, 3);
        for (auto variant : allAttentionVariants()) {
            const auto w = variantWeights(variant, x.q, x.k, x.keep, o);
            EXPECT_LT(maxDiff(w.sum(-1), torch::ones_like(w.sum(-1))), 1e-10) << attentionVariantName(variant);
            if (x.keep.defined()) {  // masked keys get no weight
                EXPECT_EQ(w.index({1, torch::indexing::Slice(), torch::indexing::Slice(), 18}).abs().max().item<double>(), 0.0);
            }
            const auto out = attendVariant(variant, x.q, x.k, x.v, x.keep, o);
            EXPECT_LT(maxDiff(out, torch::matmul(w, x.v)), 1e-9) << attentionVariantName(variant) << " masked " << masked;
        }
    }
}

TEST(AttentionVariants, WeightRowsAreSlicesOfTheWholeMatrix) {
    const auto o = smallOptions(3, 5, 2, 4, 16);
    const auto x = randomQkv(21, 8, true, 6);
    for (auto variant : allAttentionVariants()) {
        const auto whole = variantWeights(variant, x.q, x.k, x.keep, o);
        const auto rows = variantWeightRows(variant, x.q, x.k, x.keep, o, 7, 16);
        EXPECT_LT(maxDiff(rows, whole.narrow(2, 7, 9)), 1e-12) << attentionVariantName(variant);
    }
    EXPECT_THROW(variantWeightRows(AttentionVariant::Full, x.q, x.k, x.keep, o, 5, 22), c10::Error);
}

TEST(AttentionVariants, PatternsAreTheDocumentedOnes) {
    VariantOptions o;
    o.window = 2;
    o.block = 4;
    o.summary = 1;
    const auto local = variantPattern(AttentionVariant::Local, 10, 10, o);
    EXPECT_TRUE(local[5][3].item<bool>());
    EXPECT_FALSE(local[5][2].item<bool>());
    EXPECT_EQ(local.sum().item<std::int64_t>(), 10 * 5 - 2 * (2 + 1));  // band of 5, clipped at both ends
    const auto sparse = variantPattern(AttentionVariant::BlockSparse, 10, 10, o);
    EXPECT_TRUE(sparse[0][3].item<bool>());   // own block
    EXPECT_TRUE(sparse[9][3].item<bool>());   // summary key 3 (last of block 0)
    EXPECT_FALSE(sparse[9][2].item<bool>());  // not a summary key, another block
    // Weights outside the pattern are zero.
    const auto x = randomQkv(10);
    const auto w = variantWeights(AttentionVariant::BlockSparse, x.q, x.k, {}, o);
    EXPECT_EQ(w.masked_select(sparse.logical_not().expand_as(w)).abs().max().item<double>(), 0.0);
}

TEST(AttentionVariants, LimitsWhereTheApproximationsBecomeExact) {
    const auto x = randomQkv(12, 8, true, 5);
    VariantOptions o;
    o.window = 11;  // every key within reach
    EXPECT_LT(maxDiff(attendVariant(AttentionVariant::Local, x.q, x.k, x.v, x.keep, o), exact(x)), 1e-12);
    o.block = 12;  // one block holds everything
    o.summary = 3;
    EXPECT_LT(maxDiff(attendVariant(AttentionVariant::BlockSparse, x.q, x.k, x.v, x.keep, o), exact(x)), 1e-12);
    o.block = 4;  // every key is a summary key
    o.summary = 4;
    EXPECT_LT(maxDiff(attendVariant(AttentionVariant::BlockSparse, x.q, x.k, x.v, x.keep, o), exact(x)), 1e-12);
    o.topK = 12;
    EXPECT_LT(maxDiff(attendVariant(AttentionVariant::TopK, x.q, x.k, x.v, x.keep, o), exact(x)), 1e-12);
    // A window of 1 is not exact.
    o.window = 1;
    EXPECT_GT(maxDiff(attendVariant(AttentionVariant::Local, x.q, x.k, x.v, x.keep, o), exact(x)), 1e-3);
}

TEST(AttentionVariants, PerformerIsSeededAndApproachesExactWithMoreFeatures) {
    auto x = randomQkv(64, 16, false, 11);
    x.q = x.q * 0.5;
    x.k = x.k * 0.5;
    VariantOptions o;
    o.seed = 3;
    auto errorWith = [&](std::int64_t features) {
        double sum = 0;
        for (std::uint64_t s = 0; s < 4; ++s) {
            o.features = features;
            o.seed = s;
            sum += (attendVariant(AttentionVariant::Performer, x.q, x.k, x.v, {}, o) - exact(x)).abs().mean().item<double>();
        }
        return sum / 4;
    };
    o.features = 32;
    const auto a = attendVariant(AttentionVariant::Performer, x.q, x.k, x.v, {}, o);
    EXPECT_TRUE(torch::equal(a, attendVariant(AttentionVariant::Performer, x.q, x.k, x.v, {}, o)));
    o.seed = 4;
    EXPECT_FALSE(torch::equal(a, attendVariant(AttentionVariant::Performer, x.q, x.k, x.v, {}, o)));
    const double coarse = errorWith(16), fine = errorWith(1024);
    EXPECT_LT(fine, 0.5 * coarse) << coarse << " -> " << fine;
}

TEST(AttentionVariants, AMaskedKeyChangesNothingHoweverLargeItIs) {
    // Masked keys take no part in the performer's stabiliser: a huge one must not zero the rest.
    auto x = randomQkv(16, 8, true, 12);
    const auto o = smallOptions(4, 4, 1, 4, 32);
    auto huge = x.k.clone();
    huge.index_put_({1, torch::indexing::Slice(), 15}, 100.0);  // key 15 of batch 1 is masked
    for (auto variant : allAttentionVariants())
        EXPECT_LT(maxDiff(attendVariant(variant, x.q, x.k, x.v, x.keep, o), attendVariant(variant, x.q, huge, x.v, x.keep, o)),
                  1e-9) << attentionVariantName(variant);
}

TEST(AttentionVariants, EveryVariantHasGradientsThatMatchFiniteDifferences) {
    const auto o = smallOptions(2, 3, 1, 3, 8, 4);
    const auto x = randomQkv(9, 4, true, 2);
    for (auto variant : allAttentionVariants()) {
        auto q = x.q.clone().requires_grad_();
        const auto g = torch::autograd::grad({attendVariant(variant, q, x.k, x.v, x.keep, o).sum()}, {q})[0];
        const auto sum = [&](const std::vector<torch::Tensor>& in) {
            return attendVariant(variant, in[0], x.k, x.v, x.keep, o).sum().item<double>();
        };
        EXPECT_NEAR(g.view(-1)[13].item<double>(), centralDifference(sum, {x.q}, 0, 13), 1e-5) << attentionVariantName(variant);
    }
}

TEST(AttentionVariants, BadOptionsAreOneLineEach) {
    VariantOptions o;
    o.window = 20;
    EXPECT_NE(checkVariantOptions(AttentionVariant::Local, o, 10, 10).find("window 20"), std::string::npos);
    o.block = 11;
    EXPECT_NE(checkVariantOptions(AttentionVariant::BlockSparse, o, 10, 10).find("block 11"), std::string::npos);
    o.topK = 0;
    EXPECT_NE(checkVariantOptions(AttentionVariant::TopK, o, 10, 10).find("k = 0"), std::string::npos);
    o.topK = 11;
    EXPECT_NE(checkVariantOptions(AttentionVariant::TopK, o, 10, 10).find("k = 11"), std::string::npos);
    o.features = 0;
    EXPECT_NE(checkVariantOptions(AttentionVariant::Performer, o, 10, 10).find("feature"), std::string::npos);
    EXPECT_NE(checkVariantOptions(AttentionVariant::Local, VariantOptions{}, 10, 12).find("self-attention"), std::string::npos);
    EXPECT_TRUE(checkVariantOptions(AttentionVariant::Full, o, 10, 12).empty());
    const auto x = randomQkv(10);
    o = VariantOptions{};
    o.topK = 0;
    EXPECT_THROW(attendVariant(AttentionVariant::TopK, x.q, x.k, x.v, {}, o), c10::Error);
}

TEST(AttentionVariants, WorkingMemoryEstimatesScaleAsTheVariantsDo) {
    const VariantOptions o;
    const auto fullSmall = variantWorkingBytes(AttentionVariant::Full, o, 1, 1024, 1024, 64, false);
    const auto fullLarge = variantWorkingBytes(AttentionVariant::Full, o, 1, 16384, 16384, 64, false);
    EXPECT_GT(fullLarge, 200 * fullSmall);  // quadratic
    EXPECT_GE(fullLarge, std::int64_t(2) << 30);  // the 16384^2 matrix is 1 GiB, twice
    const auto effLarge = variantWorkingBytes(AttentionVariant::MemoryEfficient, o, 1, 16384, 16384, 64, false);
    EXPECT_LT(effLarge, std::int64_t(64) << 20);
    const auto localLarge = variantWorkingBytes(AttentionVariant::Local, o, 1, 16384, 16384, 64, false);
    EXPECT_LT(localLarge, 20 * variantWorkingBytes(AttentionVariant::Local, o, 1, 1024, 1024, 64, false));
}

TEST(AttentionVariants, CudaGivesWhatTheCpuGives) {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
    const auto o = smallOptions(3, 4, 2, 5, 16, 6);
    const auto x = randomQkv(19, 8, true, 3);
    for (auto variant : allAttentionVariants()) {
        const auto cpu = attendVariant(variant, x.q, x.k, x.v, x.keep, o);
        const auto gpu = attendVariant(variant, x.q.cuda(), x.k.cuda(), x.v.cuda(), x.keep.cuda(), o);
        EXPECT_LT(maxDiff(cpu, gpu.cpu()), 1e-9) << attentionVariantName(variant);  // performer's features come from the CPU
    }
}

}  // namespace
}  // namespace saccade
