// The native Vision Transformer: config checks, the network's attention weights, a few training
// iterations through the shared loop, and the loaded model's traces and evaluation.

#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "data/augment.h"
#include "data/dataset.h"
#include "models/attention_model.h"
#include "models/transformer_maps.h"
#include "models/vit/vit_network.h"
#include "models/vit/vit_trainer.h"
#include "temp_dir.h"
#include "test_device.h"

namespace saccade {
namespace {

VitConfig smallConfig() {
    VitConfig c;
    c.imageSize = 28;
    c.patch = 7;
    c.dim = 16;
    c.layers = 2;
    c.heads = 2;
    c.mlp = 32;
    return c;
}

TEST(VitConfig, ChecksAndRoundTrips) {
    auto c = smallConfig();
    auto back = vitConfigFromJson(vitConfigToJson(c));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->patch, 7);
    EXPECT_EQ(back->grid(), 4);
    auto bad = c;
    bad.patch = 5;
    EXPECT_NE(validateVitConfig(bad).error().find("multiple of the patch"), std::string::npos);
    bad = c;
    bad.dim = 15;
    EXPECT_NE(validateVitConfig(bad).error().find("multiple of heads"), std::string::npos);
    bad = c;
    bad.dropout = 1;
    EXPECT_FALSE(validateVitConfig(bad).ok());
    EXPECT_FALSE(vitConfigFromJson("{\"patch\": 7}").ok());
}

TEST(VitNetwork, AttentionRowsAreDistributions) {
    torch::manual_seed(3);
    VitNetwork net(smallConfig());
    net->eval();
    torch::NoGradGuard noGrad;
    const auto out = net->forward(torch::rand({3, 1, 28, 28}), true);
    EXPECT_EQ(out.logits.sizes(), (std::vector<std::int64_t>{3, 10}));
    ASSERT_EQ(out.attentions.sizes(), (std::vector<std::int64_t>{3, 2, 2, 17, 17}));
    EXPECT_TRUE(torch::allclose(out.attentions.sum(-1), torch::ones({3, 2, 2, 17}), 1e-5, 1e-5));
    EXPECT_FALSE(net->forward(torch::rand({3, 1, 28, 28})).attentions.defined());
    // The answer does not depend on whether the maps are kept.
    EXPECT_TRUE(torch::allclose(net->forward(torch::ones({1, 1, 28, 28})).logits,
                                net->forward(torch::ones({1, 1, 28, 28}), true).logits));
}

TEST(VitConfig, ShiftedPatchesAreReadStrictlyAndAbsentInOlderModels) {
    auto c = smallConfig();
    c.shiftedPatches = true;
    auto back = vitConfigFromJson(vitConfigToJson(c));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_TRUE(back->shiftedPatches);
    auto older = nlohmann::json::parse(vitConfigToJson(smallConfig()));
    older.erase("shifted_patches");
    back = vitConfigFromJson(older.dump());
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_FALSE(back->shiftedPatches);
    older["shifted_patches"] = 1;
    EXPECT_EQ(vitConfigFromJson(older.dump()).error(), "model config: 'shifted_patches' must be true or false, got 1");
}

TEST(VitNetwork, ShiftedPatchTokensReadHalfAPatchIntoTheirNeighbours) {
    // Patch (0, 0) covers rows and columns 0..6; its shifted copies reach 3 pixels (half of 7)
    // into the patches right of and below it, and no further.
    for (const bool spt : {false, true}) {
        auto c = smallConfig();
        c.shiftedPatches = spt;
        torch::manual_seed(5);
        VitNetwork net(c);
        torch::NoGradGuard noGrad;
        const auto image = torch::zeros({1, 1, 28, 28});
        const auto base = net->patchTokens(image);
        ASSERT_EQ(base.sizes(), (std::vector<std::int64_t>{1, 16, 16}));
        auto near = image.clone();
        near[0][0][9][9] = 1;  // in patch (1, 1), 3 pixels from patch (0, 0)
        auto far = image.clone();
        far[0][0][10][10] = 1;  // 4 pixels away
        const auto change = [&](const torch::Tensor& x) { return (net->patchTokens(x) - base).abs().amax(-1)[0]; };
        EXPECT_EQ(change(near)[0].item<float>() > 0, spt) << "shifted patches " << spt;
        EXPECT_EQ(change(far)[0].item<float>(), 0.0f);
        EXPECT_GT(change(near)[5].item<float>(), 0.0f);  // the pixel's own patch, (1, 1)
        EXPECT_EQ(net->forward(torch::rand({2, 1, 28, 28}), true).attentions.size(-1), 17);
    }
}

TEST(VitTraining, TrainsLoadsTracesAndEvaluates) {
    test::TempDir dir;
    VitTrainOptions o;
    o.dataset = "digits28";
    o.model = smallConfig();
    o.iterations = 4;
    o.batch = 8;
    o.evalEvery = 2;
    o.evalImages = 16;
    o.device = test::testDevice();
    o.out = dir.file("vit.pt");
    auto summary = trainVitModel(o);
    ASSERT_TRUE(summary.ok()) << summary.error();

    auto model = loadAttentionModel(o.out, test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto& m = **model;
    EXPECT_EQ(m.info().modelType, "vit");
    EXPECT_EQ(m.steps(), 2);
    EXPECT_EQ(m.deterministicRule(), "attention");
    auto data = openDataset("digits28");
    ASSERT_TRUE(data.ok());
    const auto sample = (*data)->sample(Split::Test, 4);
    auto raw = m.trace(sample.image, "attention", 1, "x");
    auto roll = m.trace(sample.image, "rollout", 1, "x");
    auto head = m.trace(sample.image, "head:1", 1, "x");
    ASSERT_TRUE(raw.ok() && roll.ok() && head.ok()) << raw.error() << roll.error() << head.error();
    ASSERT_EQ(raw->steps.size(), 2u);
    EXPECT_EQ(raw->steps[0].grid->rows, 4);
    EXPECT_EQ(raw->output.label, roll->output.label);  // the rule changes the map, not the answer
    // At the first layer the identity rollout adds only weighs the CLS token itself, which the map
    // drops: rollout equals raw attention there, and differs from the second layer on.
    for (size_t c = 0; c < 16; ++c) EXPECT_NEAR(raw->steps[0].grid->probs[c], roll->steps[0].grid->probs[c], 1e-6);
    EXPECT_NE(raw->steps[1].grid->probs, roll->steps[1].grid->probs);
    EXPECT_FALSE(m.trace(sample.image, "head:2", 1, "x").ok());
    EXPECT_FALSE(m.trace(sample.image, "sample", 1, "x").ok());
    EXPECT_FALSE(m.sampleRuns(sample.image, 3, 1, "x", std::nullopt).ok());

    auto report = m.evaluate(**data, Split::Test, {"attention"}, 20, 1);
    ASSERT_TRUE(report.ok()) << report.error();
    EXPECT_EQ(report->rules[0].n, 20);
    EXPECT_EQ(report->predictions[0][4], raw->output.label);
    EXPECT_FALSE(m.evaluate(**data, Split::Test, {"rollout"}, 20, 1).ok());

    // The same iterations from the same seed give the same weights: the same answer and maps.
    o.out = dir.file("again.pt");
    ASSERT_TRUE(trainVitModel(o).ok());
    auto again = loadAttentionModel(o.out, test::testDevice());
    ASSERT_TRUE(again.ok());
    auto rawAgain = (*again)->trace(sample.image, "attention", 1, "x");
    ASSERT_TRUE(rawAgain.ok());
    EXPECT_EQ(rawAgain->steps[1].grid->probs, raw->steps[1].grid->probs);

    // Shifted training images are seeded too: the same seed, the same weights; --shift changes them.
    o.shift = true;
    o.out = dir.file("shifted.pt");
    ASSERT_TRUE(trainVitModel(o).ok());
    o.out = dir.file("shifted-again.pt");
    ASSERT_TRUE(trainVitModel(o).ok());
    auto shifted = loadAttentionModel(dir.file("shifted.pt"), test::testDevice());
    auto shiftedAgain = loadAttentionModel(dir.file("shifted-again.pt"), test::testDevice());
    ASSERT_TRUE(shifted.ok() && shiftedAgain.ok());
    const auto s1 = (*shifted)->trace(sample.image, "attention", 1, "x"), s2 = (*shiftedAgain)->trace(sample.image, "attention", 1, "x");
    ASSERT_TRUE(s1.ok() && s2.ok());
    EXPECT_EQ(s1->steps[1].grid->probs, s2->steps[1].grid->probs);
    EXPECT_NE(s1->steps[1].grid->probs, raw->steps[1].grid->probs);
}

TEST(Augment, ShiftKeepsEachBoxOnTheCanvasAndItsPixels) {
    // Two 1 x 8 x 10 canvases: a 3 x 2 block of 1s at x 6..8, y 1..2 (box 6, 1, 3, 2), and one
    // without a box, which stays.
    auto images = torch::zeros({2, 1, 8, 10});
    images[0].narrow(1, 1, 2).narrow(2, 6, 3).fill_(1);
    images[1].fill_(0.5);
    const auto boxes = torch::tensor({6.f, 1.f, 3.f, 2.f, 0.f, 0.f, 0.f, 0.f}).view({2, 4});
    std::set<std::pair<std::int64_t, std::int64_t>> corners;
    for (std::uint64_t seed = 0; seed < 1000; ++seed) {
        const auto out = shiftKeepingBoxes(images, boxes, seed);
        ASSERT_EQ(out.sizes(), images.sizes());
        EXPECT_DOUBLE_EQ(out[0].sum().item<double>(), 6.0);  // the whole block is still there
        EXPECT_TRUE(torch::equal(out[1], images[1]));
        const auto on = out[0][0].nonzero();  // its top-left corner lies where the block fits
        const auto y = on.select(1, 0).min().item<std::int64_t>(), x = on.select(1, 1).min().item<std::int64_t>();
        EXPECT_TRUE(torch::equal(out[0][0].narrow(0, y, 2).narrow(1, x, 3), torch::ones({2, 3})));
        corners.insert({y, x});
        if (seed == 7) {
            EXPECT_TRUE(torch::equal(out, shiftKeepingBoxes(images, boxes, 7)));
        }
    }
    // Every placement of a 3 x 2 block on 10 x 8 is reachable: 8 columns x 7 rows.
    EXPECT_EQ(corners.size(), 56u);
    // One of the two can move; a box that fills the canvas cannot.
    EXPECT_EQ(movableBoxes(boxes, 8, 10), 1);
    EXPECT_EQ(movableBoxes(torch::tensor({0.f, 0.f, 10.f, 8.f}).view({1, 4}), 8, 10), 0);
    EXPECT_EQ(movableBoxes(torch::tensor({0.f, 0.f, 10.f, 7.5f}).view({1, 4}), 8, 10), 0);  // 7.5 px span 8 rows
}

}  // namespace
}  // namespace saccade
