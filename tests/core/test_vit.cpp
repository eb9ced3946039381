// The native Vision Transformer: config checks, the network's attention weights, a few training
// iterations through the shared loop, and the loaded model's traces and evaluation.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data/dataset.h"
#include "models/attention_model.h"
#include "models/transformer_maps.h"
#include "models/vit_network.h"
#include "train/vit_trainer.h"
#include "temp_dir.h"

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

TEST(VitTraining, TrainsLoadsTracesAndEvaluates) {
    test::TempDir dir;
    VitTrainOptions o;
    o.dataset = "digits28";
    o.model = smallConfig();
    o.iterations = 4;
    o.batch = 8;
    o.evalEvery = 2;
    o.evalImages = 16;
    o.device = "cpu";
    o.out = dir.file("vit.pt");
    auto summary = trainVitModel(o);
    ASSERT_TRUE(summary.ok()) << summary.error();

    auto model = loadAttentionModel(o.out, "cpu");
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
    auto again = loadAttentionModel(o.out, "cpu");
    ASSERT_TRUE(again.ok());
    auto rawAgain = (*again)->trace(sample.image, "attention", 1, "x");
    ASSERT_TRUE(rawAgain.ok());
    EXPECT_EQ(rawAgain->steps[1].grid->probs, raw->steps[1].grid->probs);
}

}  // namespace
}  // namespace saccade
