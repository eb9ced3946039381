// Integrated gradients through a model's affine first layer (gradient_forward.h's
// AffineInputSplit): the fused ReLU and pooling on the factored path and the fused convolution,
// pool and ReLU against ATen's operations, and the split on the bundled patch classifier against
// differentiating every point of the path.

#include <filesystem>
#include <tuple>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "analysis/attribution/attribution_gradients.h"
#include "data/dataset.h"
#include "models/conv_pool_relu.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "models/patch/patch_model.h"
#include "models/path_pooling.h"

namespace saccade {
namespace {

double relativeDifference(const torch::Tensor& a, const torch::Tensor& b) {
    return ((a - b).abs().max() / b.abs().max()).item<double>();
}

// Values, the gradient of start and the gradient of direction, at odd sizes too (the last row
// and column of a 7 x 9 plane are dropped by a 2 x 2 pool).
TEST(PathPooling, FusedLoopsMatchAtenAndTheirGradients) {
    torch::manual_seed(3);
    for (const auto& [kernel, h, w] : {std::tuple{2, 60, 60}, std::tuple{3, 30, 30}, std::tuple{2, 7, 9}}) {
        const auto alphas = torch::linspace(0, 1, 9);
        auto s1 = torch::randn({1, 5, h, w}).requires_grad_(true), d1 = torch::randn({1, 5, h, w}).requires_grad_(true);
        auto s2 = s1.detach().clone().requires_grad_(true), d2 = d1.detach().clone().requires_grad_(true);
        const auto fused = reluMaxPoolOnPath(s1, d1, alphas, kernel);
        const auto reference = reluMaxPoolOnPathReference(s2, d2, alphas, kernel);
        ASSERT_EQ(fused.sizes(), reference.sizes());
        // Equal but for a fused multiply-add in start + alpha * direction.
        EXPECT_LT(relativeDifference(fused, reference), 1e-6) << kernel << " " << h << "x" << w;
        const auto weights = torch::randn(fused.sizes());
        (fused * weights).sum().backward();
        (reference * weights).sum().backward();
        EXPECT_LT(relativeDifference(s1.grad(), s2.grad()), 1e-6);
        EXPECT_LT(relativeDifference(d1.grad(), d2.grad()), 1e-6);
    }
}

// Values and the gradients of the input, the weights and the bias, with the patch encoder's
// shapes (16 channels in, a 3 x 3 pool after a padded 3 x 3 convolution: the grouped loops),
// other channel counts and a pool that drops a row and a column.
TEST(PathPooling, ConvolutionPoolAndReluMatchAtenAndTheirGradients) {
    torch::manual_seed(4);
    for (const auto& [kernel, size, in] : {std::tuple{3, 30, 16}, std::tuple{3, 30, 6}, std::tuple{2, 9, 16}}) {
        auto x1 = torch::relu(torch::randn({4, in, size, size})).requires_grad_(true);
        auto w1 = torch::randn({5, in, 3, 3}).requires_grad_(true), b1 = torch::randn({5}).requires_grad_(true);
        auto x2 = x1.detach().clone().requires_grad_(true), w2 = w1.detach().clone().requires_grad_(true),
             b2 = b1.detach().clone().requires_grad_(true);
        const auto fused = convMaxPoolRelu(x1, w1, b1, /*padding=*/1, kernel);
        const auto reference = convMaxPoolReluReference(x2, w2, b2, /*padding=*/1, kernel);
        ASSERT_EQ(fused.sizes(), reference.sizes());
        EXPECT_TRUE(torch::equal(fused, reference)) << kernel;
        const auto weights = torch::randn(fused.sizes());
        (fused * weights).sum().backward();
        (reference * weights).sum().backward();
        EXPECT_LT(relativeDifference(x1.grad(), x2.grad()), 1e-5) << kernel;
        EXPECT_LT(relativeDifference(w1.grad(), w2.grad()), 1e-5) << kernel;
        EXPECT_LT(relativeDifference(b1.grad(), b2.grad()), 1e-5) << kernel;
        // The input's gradient alone (attribution's case) takes the sparse loops.
        auto x3 = x1.detach().clone().requires_grad_(true);
        const auto only = torch::autograd::grad({(convMaxPoolRelu(x3, w1, b1, 1, kernel) * weights).sum()}, {x3})[0];
        EXPECT_LT(relativeDifference(only, x2.grad()), 1e-5) << kernel;
    }
}

// The map through the split is the sum of the same gradients in another order: it matches
// differentiating the model at every point to float rounding, on the bundled soft model and a
// test image (translated-fashion60:3, the image of docs/results.md's completeness figure). The
// black baseline keeps the image's black background exactly flat along the path (the first
// layer's output there is its bias at every point); a grey baseline gives flat but rounded
// values at the trapezoid's ends, where max-pool windows tie and either position's gradient is
// the model's, so that baseline is compared on Gauss-Legendre's inner nodes.
TEST(Attribution, IntegratedGradientsThroughTheAffineFirstLayerMatchEveryPointsGradients) {
    const std::string path = std::string(SACCADE_SAMPLES_DIR) + "/models/patch-soft-fashion60.pt";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no bundled models";
    if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"))
        GTEST_SKIP() << "no Fashion-MNIST";
    auto model = PatchModel::load(path, "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    auto data = openDatasetFor(**model, "translated-fashion60", (*model)->info().seed);
    ASSERT_TRUE(data.ok()) << data.error();
    auto x = modelInput((*data)->sample(Split::Test, 3).image, 60, 1, torch::kCPU);
    ASSERT_TRUE(x.ok()) << x.error();
    GradientForward* split = (*model)->gradientForward();
    ASSERT_TRUE(split->hasAffineInputSplit());
    // The same model without the split: every point of the path differentiated in full.
    FunctionGradientForward everyPoint(split->device(), split->defaultRule(),
                                       [split](const torch::Tensor& images, const std::string& rule) {
                                           return split->logits(images, rule);
                                       });
    ASSERT_FALSE(everyPoint.hasAffineInputSplit());
    const auto black = torch::zeros_like(*x), grey = torch::full_like(*x, 0.5);
    const std::tuple<const char*, const char*, torch::Tensor> cases[] = {
        {"soft", "trapezoid", black},      {"soft", "gauss-legendre", black}, {"argmax", "trapezoid", black},
        {"argmax", "gauss-legendre", black}, {"soft", "gauss-legendre", grey}, {"argmax", "gauss-legendre", grey}};
    for (const auto& [rule, quadrature, baseline] : cases) {
        const auto fast = integratedGradients(*split, *x, baseline, rule, 3, 64, quadrature);
        const auto plain = integratedGradients(everyPoint, *x, baseline, rule, 3, 64, quadrature);
        const bool isBlack = torch::equal(baseline, black);
        EXPECT_LT(relativeDifference(fast.pixels, plain.pixels), 1e-5) << rule << " " << quadrature << " " << isBlack;
        EXPECT_NEAR(fast.pixels.sum().item<double>(), plain.pixels.sum().item<double>(),
                    1e-5 * plain.pixels.abs().sum().item<double>());
        EXPECT_DOUBLE_EQ(fast.fInput, plain.fInput);
        EXPECT_DOUBLE_EQ(fast.fBaseline, plain.fBaseline);
        EXPECT_EQ(fast.forwards, plain.forwards);
    }
}

}  // namespace
}  // namespace saccade
