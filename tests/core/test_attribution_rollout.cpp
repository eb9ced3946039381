// Gradient-weighted attention rollout (Chefer et al. 2021) beside plain rollout: the relevance of
// a hand-made one-layer attention graph, worked out by hand; the bundled ViT's map, where the
// object is; and a model without attention in its graph refused in one line.

#include <filesystem>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/attribution_gradients.h"
#include "data/dataset.h"
#include "trace/ground_truth.h"
#include "models/attention_model.h"
#include "models/gradient_forward.h"

namespace saccade {
namespace {

// One layer, two heads, three tokens (a CLS and a 1x2 grid). The logit of class 0 is
// 2 A[0][1] + A[0][2] of head 0 and 4 A[0][2] of head 1: dA holds those weights on row 0.
TEST(GradientRollout, OneLayerRelevanceIsTheGradientWeightedAttentionRow) {
    const auto a = torch::tensor({0.2, 0.5, 0.3, 0.1, 0.1, 0.8}, torch::kDouble);
    auto graph = [&](const torch::Tensor&, const std::string&) {
        auto heads = torch::zeros({1, 2, 3, 3}, torch::kDouble);
        heads[0][0][0] = a.slice(0, 0, 3);
        heads[0][1][0] = a.slice(0, 3, 6);
        heads = heads.clone().requires_grad_(true);
        AttentionGraph g;
        g.logits = torch::stack({2 * heads[0][0][0][1] + heads[0][0][0][2] + 4 * heads[0][1][0][2], torch::zeros({}, torch::kDouble)}).view({1, 2});
        g.attentions = {heads};
        g.prefix = 1;
        g.gridRows = 1;
        g.gridCols = 2;
        return g;
    };
    FunctionGradientForward f(torch::kCPU, "attention", [](const torch::Tensor&, const std::string&) { return torch::zeros({1, 2}); });
    f.setAttentionGraph(graph);
    ASSERT_TRUE(f.hasAttentionGraph());
    const auto r = gradientRollout(f, torch::zeros({1, 1, 2, 2}), "attention", 0);
    ASSERT_EQ(r.grid.sizes(), (std::vector<std::int64_t>{1, 2}));
    // R = I + mean over heads of ReLU(dA * A): row 0 over the grid tokens 1 and 2.
    EXPECT_NEAR(r.grid[0][0].item<double>(), (2 * 0.5 + 0) / 2, 1e-12);
    EXPECT_NEAR(r.grid[0][1].item<double>(), (1 * 0.3 + 4 * 0.8) / 2, 1e-12);
}

TEST(GradientRollout, TheBundledVitLooksAtTheObjectAndPatchModelsAreRefused) {
    const std::string dir = std::string(SACCADE_SAMPLES_DIR) + "/models/";
    if (!std::filesystem::exists(dir + "vit-translated-fashion60.pt")) GTEST_SKIP() << "no bundled models";
    auto data = openDataset("translated-fashion60", {"", 1});
    ASSERT_TRUE(data.ok()) << data.error();
    // Plain patch tokens, and shifted ones (each token also reads half a patch around it).
    for (const std::string file : {"vit-translated-fashion60.pt", "vit-spt-translated-fashion60.pt"}) {
        auto vit = loadAttentionModel(dir + file, "cpu");
        ASSERT_TRUE(vit.ok()) << vit.error();
        double mass = 0, area = 0;
        for (int i = 0; i < 8; ++i) {
            const auto sample = (*data)->sample(Split::Test, i);
            AttributionOptions o;
            o.method = "gradient-rollout";
            auto map = attribute(**vit, sample.image, o, sampleGroundTruth(sample));
            ASSERT_TRUE(map.ok()) << map.error();
            ASSERT_EQ(map->rows, 10);
            for (double c : map->cells) EXPECT_GE(c, 0.0);
            mass += *map->massInBox;
            area += *map->boxArea;
        }
        EXPECT_GT(mass, 2 * area) << file;  // far more of the map on the object than on an equal share of the image
    }
    auto patch = loadAttentionModel(dir + "patch-soft-fashion60.pt", "cpu");
    ASSERT_TRUE(patch.ok()) << patch.error();
    AttributionOptions o;
    o.method = "gradient-rollout";
    auto refused = attribute(**patch, (*data)->sample(Split::Test, 0).image, o);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("has no transformer attention in its graph for gradient-weighted rollout"), std::string::npos)
        << refused.error();
}

}  // namespace
}  // namespace saccade
