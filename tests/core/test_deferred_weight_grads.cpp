// DeferredWeightGrads against plain autograd on a small recurrence whose batch shrinks: the same
// values, and the same gradients for the weights, the inputs and the initial state; a step whose
// result no loss reads; a second backward pass over a retained graph; inactive without autograd.

#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/deferred_weight_grads.h"

namespace saccade {
namespace {

float largestGap(const torch::Tensor& x, const torch::Tensor& y) { return (x - y).abs().max().item<float>(); }

struct Run {
    torch::Tensor loss;
    std::vector<torch::Tensor> leaves;  // W1, W2, base, h0
};

/// h_{t+1} = tanh(base_t + x_t W1 + h_t W2) on the first rows[t] rows; loss reads every step but
/// `unread`.
Run recurrence(bool deferred, const std::vector<std::int64_t>& rows, int unread) {
    torch::manual_seed(2);
    const int B = 5, K = 3, H = 4, T = int(rows.size());
    auto w1 = torch::randn({K, H}).requires_grad_(true), w2 = torch::randn({H, H}).requires_grad_(true);
    auto base = torch::randn({T, B, H}).requires_grad_(true), h0 = torch::randn({B, H}).requires_grad_(true);
    const auto x = torch::randn({T, B, K});
    const auto up = torch::randn({T, B, H});
    DeferredWeightGrads products({w1, w2});
    EXPECT_TRUE(products.active());
    auto h = h0;
    auto loss = torch::zeros({});
    for (int t = 0; t < T; ++t) {
        const auto n = rows[size_t(t)];
        h = h.narrow(0, 0, n);
        const auto b = base[t].narrow(0, 0, n), xt = x[t].narrow(0, 0, n);
        const auto pre = deferred ? products.product(b, {xt, h}) : torch::addmm(torch::addmm(b, xt, w1), h, w2);
        h = torch::tanh(pre);
        if (t != unread) loss = loss + (h * up[t].narrow(0, 0, n)).sum();
    }
    return {loss, {w1, w2, base, h0}};
}

TEST(DeferredWeightGrads, SameValuesAndGradientsAsAutogradWithAShrinkingBatch) {
    for (const int unread : {-1, 2, 4}) {  // 4: the last step, whose node never runs
        const std::vector<std::int64_t> rows{5, 5, 4, 2, 2};
        auto plain = recurrence(false, rows, unread), deferred = recurrence(true, rows, unread);
        EXPECT_LT(largestGap(plain.loss, deferred.loss), 1e-5);
        plain.loss.backward();
        deferred.loss.backward({}, /*retain_graph=*/true);
        for (std::size_t i = 0; i < plain.leaves.size(); ++i)
            EXPECT_LT(largestGap(plain.leaves[i].grad(), deferred.leaves[i].grad()), 1e-5) << "leaf " << i << " unread " << unread;
        // A second pass over the retained graph adds the same gradients again.
        std::vector<torch::Tensor> first;
        for (const auto& leaf : deferred.leaves) first.push_back(leaf.grad().clone());
        deferred.loss.backward();
        for (std::size_t i = 0; i < first.size(); ++i)
            EXPECT_LT(largestGap(deferred.leaves[i].grad(), 2 * first[i]), 1e-5) << "leaf " << i;
    }
}

TEST(DeferredWeightGrads, PlainProductsWithoutAutograd) {
    const auto w = torch::randn({3, 2}, torch::requires_grad());
    const auto x = torch::randn({4, 3}), base = torch::randn({4, 2});
    {
        torch::NoGradGuard noGrad;
        DeferredWeightGrads products({w});
        EXPECT_FALSE(products.active());
        EXPECT_LT(largestGap(products.product(base, {x}), base + torch::mm(x, w)), 1e-6);
    }
    DeferredWeightGrads frozen({w.detach()});
    EXPECT_FALSE(frozen.active());
}

}  // namespace
}  // namespace saccade
