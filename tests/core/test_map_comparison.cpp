// Deletion and insertion curves, the model-randomisation sanity check and the maps' names
// (analysis/deletion_curves.h, analysis/sanity_check.h, analysis/image_maps.h) on models whose
// answers are known: a two-layer classifier with set weights and an input-only "attention", and
// the tiny patch model.

#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "analysis/attribution/deletion_curves.h"
#include "analysis/attribution/faithfulness.h"
#include "analysis/attribution/image_maps.h"
#include "analysis/attribution/sanity_check.h"
#include "models/parameter_groups.h"
#include "models/patch/patch_model.h"
#include "temp_dir.h"
#include "tiny_patch.h"
#include "two_layer_model.h"

namespace saccade {
namespace {

constexpr int kMapSize = 8, kMapGrid = 4, kMapCells = kMapGrid * kMapGrid;

// One hidden unit: h = sum over pixels of 0.01 (c + 1) x, c the pixel's cell; logits (h, 0, -h).
// On a white image cell c adds 0.04 (c + 1) to h: the perfect map is c + 1.
std::unique_ptr<test::TwoLayerModel> cellWeightedModel() {
    auto model = std::make_unique<test::TwoLayerModel>(kMapSize, kMapGrid, 1);
    torch::NoGradGuard noGrad;
    auto w = torch::zeros({1, kMapSize * kMapSize});
    for (int y = 0; y < kMapSize; ++y)
        for (int x = 0; x < kMapSize; ++x) w[0][y * kMapSize + x] = 0.01f * float((y / 2) * kMapGrid + x / 2 + 1);
    model->net()->hiddenLayer->weight.copy_(w);
    model->net()->hiddenLayer->bias.zero_();
    model->net()->outLayer->weight.copy_(torch::tensor({{1.f}, {0.f}, {-1.f}}));
    model->net()->outLayer->bias.zero_();
    return model;
}

Image whiteImage() {
    Image im = Image::zeros(kMapSize, kMapSize);
    for (auto& p : im.pixels) p = 255;
    return im;
}

double classZero(double h) { return std::exp(h) / (std::exp(h) + 1 + std::exp(-h)); }

std::vector<double> perfectMap() {
    std::vector<double> map;
    for (int c = 0; c < kMapCells; ++c) map.push_back(c + 1);
    return map;
}

TEST(DeletionCurves, FollowTheMapsOrderOnAKnownModel) {
    auto model = cellWeightedModel();
    auto curves = deletionInsertionCurves(*model, whiteImage(), kMapGrid, kMapGrid, perfectMap(), 0, "argmax", 1, {0, 0.5, 1});
    ASSERT_TRUE(curves.ok()) << curves.error();
    // Deleting the top half (cells 9-16 of 1-16) leaves h = 0.04 (1 + ... + 8) = 1.44.
    EXPECT_NEAR(curves->deletion[0], classZero(0.04 * 136), 1e-6);
    EXPECT_NEAR(curves->deletion[1], classZero(0.04 * 36), 1e-6);
    EXPECT_NEAR(curves->deletion[2], 1.0 / 3, 1e-6);  // the blank image: h = 0
    // Inserting the top half on a blank image gives h = 0.04 (9 + ... + 16) = 4.0.
    EXPECT_NEAR(curves->insertion[0], 1.0 / 3, 1e-6);
    EXPECT_NEAR(curves->insertion[1], classZero(0.04 * 100), 1e-6);
    EXPECT_NEAR(curves->insertion[2], classZero(0.04 * 136), 1e-6);
    EXPECT_NEAR(curves->deletionAuc, (curves->deletion[0] + 2 * curves->deletion[1] + curves->deletion[2]) / 4, 1e-12);
    EXPECT_EQ(curves->forwards, 6);
    EXPECT_NEAR(curveArea({0, 0.5, 1}, {1, 0.5, 0}), 0.5, 1e-12);
    EXPECT_EQ(curveFractions(4), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
}

TEST(DeletionCurves, APerfectMapBeatsItsReverse) {
    auto model = cellWeightedModel();
    std::vector<double> reversed;
    for (double v : perfectMap()) reversed.push_back(-v);
    const auto fractions = curveFractions(16);
    auto perfect = deletionInsertionCurves(*model, whiteImage(), kMapGrid, kMapGrid, perfectMap(), 0, "argmax", 1, fractions);
    auto reverse = deletionInsertionCurves(*model, whiteImage(), kMapGrid, kMapGrid, reversed, 0, "argmax", 1, fractions);
    ASSERT_TRUE(perfect.ok() && reverse.ok());
    EXPECT_GT(perfect->insertionAuc, reverse->insertionAuc + 0.1);
    EXPECT_LT(perfect->deletionAuc, reverse->deletionAuc - 0.1);
    EXPECT_EQ(cellsByImportance({0.1, 0.5, 0.5, 0.2}), (std::vector<int>{1, 2, 3, 0}));
    auto wrong = deletionInsertionCurves(*model, whiteImage(), kMapGrid, kMapGrid, {1, 2}, 0, "argmax", 1, fractions);
    ASSERT_FALSE(wrong.ok());
    EXPECT_EQ(wrong.error(), "a map of 2 cells on a 4x4 grid");
}

std::vector<Image> patternImages(int count) {
    std::vector<Image> images;
    for (int k = 0; k < count; ++k) {
        Image im = Image::zeros(kMapSize, kMapSize);
        for (int y = 0; y < kMapSize; ++y)
            for (int x = 0; x < kMapSize; ++x) im.at(x, y) = std::uint8_t((x * (37 + k) + y * (11 + 3 * k) + 29 * k) % 256);
        images.push_back(im);
    }
    return images;
}

std::vector<torch::Tensor> parameterCopies(torch::nn::Module& module) {
    std::vector<torch::Tensor> out;
    for (const auto& p : module.parameters()) out.push_back(p.detach().clone());
    return out;
}

TEST(SanityCheck, FlagsTheInputOnlyMapNotTheGradientAndRestoresTheWeights) {
    torch::manual_seed(7);
    test::TwoLayerModel model(kMapSize, kMapGrid, 16);
    const auto before = parameterCopies(*model.net());
    MapSettings settings;
    settings.rule = "argmax";
    settings.rows = settings.cols = kMapGrid;
    const auto images = patternImages(6);
    auto curves = sanityCheck(model, images, std::vector<int>(images.size(), 0), {"attention", "gradient"}, settings, 3);
    ASSERT_TRUE(curves.ok()) << curves.error();
    ASSERT_EQ(curves->size(), 2u);
    const auto& attention = (*curves)[0];
    const auto& gradient = (*curves)[1];
    ASSERT_EQ(attention.steps.size(), 2u);
    EXPECT_EQ(attention.steps[0].layer, "out");  // from the top
    EXPECT_EQ(attention.steps[1].layer, "hidden");
    EXPECT_EQ(attention.images, 6);
    EXPECT_NEAR(*attention.finalSpearman, 1.0, 1e-12);  // the map never asked the model
    EXPECT_NEAR(*attention.finalPearson, 1.0, 1e-12);
    EXPECT_TRUE(attention.flagged);
    EXPECT_LT(*gradient.finalSpearman, kSanityThreshold);
    EXPECT_FALSE(gradient.flagged);
    const auto after = parameterCopies(*model.net());
    ASSERT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(torch::equal(before[i], after[i])) << "parameter " << i;
}

TEST(SanityCheck, RestoresTheTinyPatchModelExactly) {
    test::TempDir dir;
    auto loaded = PatchModel::load(test::saveTinyPatch(dir, "tiny.pt"), "cpu");
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    auto& model = **loaded;
    const auto groups = model.gradientForward()->parameterGroups();
    ASSERT_GE(groups.size(), 3u);
    EXPECT_EQ(groups.front().name, "classifier");
    std::vector<torch::Tensor> before;
    for (const auto& g : groups)
        for (const auto& t : g.tensors) before.push_back(t.detach().clone());
    Image im = Image::zeros(28, 28);
    for (int y = 8; y < 20; ++y)
        for (int x = 6; x < 22; ++x) im.at(x, y) = std::uint8_t(100 + (x * 7 + y * 5) % 150);
    auto original = model.trace(im, "argmax", 1, "x");
    ASSERT_TRUE(original.ok());
    MapSettings settings;
    settings.rule = "soft";
    settings.rows = settings.cols = 7;
    auto curves = sanityCheck(model, {im}, {original->output.label}, {"attention", "gradient", "gradcam"}, settings, 5);
    ASSERT_TRUE(curves.ok()) << curves.error();
    EXPECT_EQ((*curves)[0].steps.size(), groups.size());
    size_t i = 0;
    for (const auto& g : model.gradientForward()->parameterGroups())
        for (const auto& t : g.tensors) EXPECT_TRUE(torch::equal(t, before[i++])) << g.name;
    auto again = model.trace(im, "argmax", 1, "x");
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->output.probs, original->output.probs);
}

TEST(ParameterGroups, NameLayersUpToTheirBlock) {
    EXPECT_EQ(parameterLayer("layers.3.fc1.weight"), "layers.3");
    EXPECT_EQ(parameterLayer("encoder.0.weight"), "encoder.0");
    EXPECT_EQ(parameterLayer("classifier.bias"), "classifier");
    EXPECT_EQ(parameterLayer("scorer.key.weight"), "scorer");
    EXPECT_EQ(parameterLayer("position"), "position");
    const auto groups = layerGroupsFromTop({{"embed.weight", torch::zeros({1})}, {"layers.0.qkv.weight", torch::zeros({1})},
                                            {"layers.0.qkv.bias", torch::zeros({1})}, {"head.weight", torch::zeros({1})}});
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[0].name, "head");
    EXPECT_EQ(groups[1].name, "layers.0");
    EXPECT_EQ(groups[1].tensors.size(), 2u);
    EXPECT_EQ(groups[2].name, "embed");
}

TEST(MapMethods, BadInputIsOneLineNamingTheMap) {
    EXPECT_EQ(parseMapMethods("attention,saliency").error(),
              "--methods: unknown map 'saliency' (use attention, rollout, gradient, gradient-x-input, "
              "integrated-gradients, smoothgrad, occlusion, gradcam, gradient-rollout)");
    EXPECT_EQ(parseMapMethods("gradient,gradient").error(), "--methods: 'gradient' is named twice");
    EXPECT_FALSE(parseMapMethods("").ok());
    EXPECT_FALSE(parseMapMethods("gradient,").ok());
    EXPECT_EQ(parseMapMethods("attention,occlusion")->size(), 2u);
    test::TwoLayerModel model(kMapSize, kMapGrid, 4);
    EXPECT_EQ(checkMapMethod(model, "rollout").error(), "two-layer test model has no rollout (it is not a transformer)");
    EXPECT_EQ(checkMapMethod(model, "gradcam").error(), "two-layer test model has no convolutional grid for Grad-CAM");
    EXPECT_TRUE(checkMapMethod(model, "integrated-gradients").ok());
}

TEST(MapMethods, EveryMapIsOnTheGridAndSumsToOne) {
    auto model = cellWeightedModel();
    MapSettings settings;
    settings.rule = "argmax";
    settings.rows = settings.cols = kMapGrid;
    settings.attribution.samples = 4;
    for (const char* method : {"attention", "gradient", "gradient-x-input", "integrated-gradients", "smoothgrad", "occlusion"}) {
        auto map = imageMap(*model, method, whiteImage(), 0, settings);
        ASSERT_TRUE(map.ok()) << method << ": " << map.error();
        ASSERT_EQ(map->size(), size_t(kMapCells)) << method;
        double total = 0;
        for (double v : *map) total += v;
        EXPECT_NEAR(total, 1.0, 1e-6) << method;
    }
    // The gradient of the linear part is the weights: cell c holds (c + 1) / 136.
    auto gradient = imageMap(*model, "gradient", whiteImage(), 0, settings);
    EXPECT_NEAR((*gradient)[15], 16.0 / 136, 1e-6);
    EXPECT_NEAR(pearson({1, 2, 3}, {2, 4, 6}), 1.0, 1e-12);
    EXPECT_EQ(pearson({1, 1, 1}, {1, 2, 3}), 0.0);
}

}  // namespace
}  // namespace saccade
