// Attribution maps (analysis/attribution.h) on models whose answers are known: a linear
// classifier with set weights (its gradient is its weights), the tiny patch model, and the
// bundled patch classifiers for integrated gradients' completeness.

#include <cmath>
#include <filesystem>
#include <numeric>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/faithfulness.h"
#include "data/dataset.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "models/patch/patch_model.h"
#include "temp_dir.h"
#include "tiny_patch.h"

namespace saccade {
namespace {

// logits = W x + b over S x S grey images, 3 classes, a 2 x 2 cell grid; no feature grid.
class LinearModel : public AttentionModel {
public:
    LinearModel(int size, torch::Tensor weights, torch::Tensor bias)
        : m_size(size), m_w(std::move(weights)), m_b(std::move(bias)),
          m_forward(torch::kCPU, "argmax", [this](const torch::Tensor& x, const std::string& rule) {
              TORCH_CHECK(rule == "argmax", "linear model: only argmax, not '", rule, "'");
              return torch::matmul(x.flatten(1), m_w.t()) + m_b;
          }) {
        m_info.modelType = "linear";
    }
    const CheckpointInfo& info() const override { return m_info; }
    std::string deviceName() const override { return "cpu"; }
    std::vector<std::string> classNames() const override { return {"a", "b", "c"}; }
    int imageSize() const override { return m_size; }
    int channels() const override { return 1; }
    int steps() const override { return 1; }
    TrainingMode trainedMode() const override { return TrainingMode::Hard; }
    std::string deterministicRule() const override { return "argmax"; }
    std::string summary() const override { return "linear"; }
    std::string displayName() const override { return "linear test model"; }
    CellGrid cellGrid() const override { return {2, "none", "dense"}; }
    GradientForward* gradientForward() override { return &m_forward; }

    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override {
        auto x = modelInput(image, m_size, 1, torch::kCPU);
        if (!x) return Error{x.error()};
        Trace t;
        t.output.probs = toFloatVector(torch::softmax(m_forward.logits(*x, rule), -1)[0]);
        return t;
    }
    Result<RunSet> sampleRuns(const Image&, int, std::uint64_t, const std::string&, const std::optional<GroundTruth>&,
                              int, const Progress&) override {
        return Error{"no runs"};
    }
    Result<EvalReport> evaluate(const Dataset&, Split, const std::vector<std::string>&, std::int64_t, std::uint64_t,
                                const Progress&, const Shard&) override {
        return Error{"no evaluation"};
    }

private:
    int m_size;
    torch::Tensor m_w, m_b;
    FunctionGradientForward m_forward;
    CheckpointInfo m_info;
};

constexpr int kSize = 8;

std::unique_ptr<LinearModel> linearModel() {
    torch::manual_seed(5);
    return std::make_unique<LinearModel>(kSize, torch::randn({3, kSize * kSize}), torch::tensor({0.5f, -0.25f, 1.0f}));
}

Image rampImage(int size) {
    Image im = Image::zeros(size, size);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) im.at(x, y) = std::uint8_t((x * 31 + y * 17) % 256);
    return im;
}

double pixel(const Image& im, int i) { return im.pixels[size_t(i)] / 255.0; }

TEST(Attribution, GradientOfALinearModelIsItsWeights) {
    auto model = linearModel();
    torch::manual_seed(5);
    const auto w = torch::randn({3, kSize * kSize});  // the same draw as the model's
    AttributionOptions o;
    o.method = "gradient";
    o.target = 1;
    auto map = attribute(*model, rampImage(kSize), o);
    ASSERT_TRUE(map.ok()) << map.error();
    ASSERT_EQ(map->signedMap.size(), size_t(kSize * kSize));
    for (int i = 0; i < kSize * kSize; ++i) {
        EXPECT_NEAR(map->signedMap[size_t(i)], w[1][i].item<double>(), 1e-6);
        EXPECT_NEAR(map->magnitude[size_t(i)], std::abs(w[1][i].item<double>()), 1e-6);
    }
    EXPECT_EQ(map->rows, 2);
    EXPECT_NEAR(std::accumulate(map->cells.begin(), map->cells.end(), 0.0), 1.0, 1e-9);
    EXPECT_FALSE(map->completenessError.has_value());
    EXPECT_FALSE(map->massInBox.has_value());
}

TEST(Attribution, GradientTimesInputSumsToTheLogitLessItsBias) {
    auto model = linearModel();
    const Image im = rampImage(kSize);
    AttributionOptions o;
    o.method = "gradient-x-input";
    o.target = 2;
    auto map = attribute(*model, im, o);
    ASSERT_TRUE(map.ok()) << map.error();
    torch::manual_seed(5);
    const auto w = torch::randn({3, kSize * kSize});
    double logit = 0, sum = 0;
    for (int i = 0; i < kSize * kSize; ++i) {
        logit += w[2][i].item<double>() * pixel(im, i);
        sum += map->signedMap[size_t(i)];
    }
    EXPECT_NEAR(sum, logit, 1e-4);  // the bias (1.0) is not the pixels'
}

TEST(Attribution, IntegratedGradientsOfALinearModelAreExactAtAnySteps) {
    auto model = linearModel();
    AttributionOptions o;
    o.method = "integrated-gradients";
    o.target = 0;
    for (int steps : {1, 7, 64}) {
        o.steps = steps;
        auto map = attribute(*model, rampImage(kSize), o);
        ASSERT_TRUE(map.ok()) << map.error();
        ASSERT_TRUE(map->completenessError.has_value());
        EXPECT_LT(*map->completenessError, 1e-5) << steps << " steps";
        EXPECT_EQ(map->baseline, "black");
        EXPECT_NEAR(*map->fBaseline, 0.5, 1e-6);  // f(black) is the bias
    }
}

std::shared_ptr<PatchModel> tinyPatch(const test::TempDir& dir) {
    auto loaded = PatchModel::load(test::saveTinyPatch(dir, "tiny.pt"), "cpu");
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error());
    return loaded.ok() ? *loaded : nullptr;
}

Image blobImage(int size) {
    Image im = Image::zeros(size, size);
    for (int y = size / 4; y < size / 2 + 3; ++y)
        for (int x = size / 3; x < size - 4; ++x) im.at(x, y) = std::uint8_t(120 + (x * 13 + y * 7) % 120);
    return im;
}

TEST(Attribution, IntegratedGradientsAreCompleteOnTheTinyPatchModelAt64Steps) {
    test::TempDir dir;
    auto model = tinyPatch(dir);
    ASSERT_TRUE(model);
    AttributionOptions o;
    o.method = "integrated-gradients";
    o.rule = "soft";
    o.steps = 64;
    o.quadrature = "trapezoid";
    for (const char* baseline : {"black", "mean"}) {
        o.baseline = baseline;
        auto map = attribute(*model, blobImage(28), o);
        ASSERT_TRUE(map.ok()) << map.error();
        ASSERT_TRUE(map->completenessError.has_value());
        EXPECT_LT(*map->completenessError, 0.01) << baseline;
        EXPECT_EQ(map->forwards, 64 + 1 + 2 + 1);  // the path's points, both ends, the first forward
    }
}

// Measured, not hoped for: on the bundled models 64 trapezoid steps leave 1.3-7.6% (ReLU and
// max-pool kinks along the path); 512 steps bring the error under 1%.
TEST(Attribution, IntegratedGradientsConvergeOnTheBundledPatchModels) {
    const std::string dir = std::string(SACCADE_SAMPLES_DIR) + "/models/";
    for (const char* name : {"patch-soft-fashion60.pt", "patch-hard-fashion60.pt"}) {
        if (!std::filesystem::exists(dir + name)) GTEST_SKIP() << "no bundled models";
        auto model = PatchModel::load(dir + name, "cpu");
        ASSERT_TRUE(model.ok()) << model.error();
        AttributionOptions o;
        o.method = "integrated-gradients";
        o.rule = "soft";
        auto coarse = attribute(**model, blobImage(60), o);
        o.steps = 512;
        auto fine = attribute(**model, blobImage(60), o);
        ASSERT_TRUE(coarse.ok() && fine.ok());
        EXPECT_LT(*coarse->completenessError, 0.1) << name;
        EXPECT_LT(*fine->completenessError, 0.01) << name;
    }
}

// With a tolerance the steps double until the map sums to the change of the logit: under the soft
// rule every one of six test images gets within 1% (the issue measured 0.3-2.4% at a fixed 64);
// under argmax the output jumps along the path, and the map says so instead of pretending.
TEST(Attribution, IntegratedGradientsDoubleTheirStepsUntilTheyAreComplete) {
    const std::string dir = std::string(SACCADE_SAMPLES_DIR) + "/models/";
    auto soft = PatchModel::load(dir + "patch-soft-fashion60.pt", "cpu");
    auto hard = PatchModel::load(dir + "patch-hard-fashion60.pt", "cpu");
    if (!soft.ok() || !hard.ok()) GTEST_SKIP() << "no bundled models";
    auto dataset = openDataset((*soft)->info().dataset, {"", (*soft)->info().seed});
    if (!dataset.ok()) GTEST_SKIP() << dataset.error();
    AttributionOptions o;
    o.method = "integrated-gradients";
    o.steps = 16;
    o.tolerance = 0.01;
    int notConverged = 0;
    for (int i = 0; i < 6; ++i) {
        const auto image = (*dataset)->sample(Split::Test, i).image;
        o.rule = "soft";
        auto map = attribute(**soft, image, o);
        ASSERT_TRUE(map.ok()) << map.error();
        ASSERT_TRUE(map->completenessError && map->steps && map->converged) << i;
        EXPECT_TRUE(*map->converged) << i << ": " << map->convergence;
        EXPECT_LE(*map->completenessError, 0.01) << i;
        const int steps = *map->steps;
        EXPECT_TRUE(steps >= 16 && steps <= 1024 && (steps & (steps - 1)) == 0) << steps;
        // Every try went through the model: 16 + 32 + ... + steps points and both ends each.
        std::int64_t forwards = 1;
        for (int s = 16; s <= steps; s *= 2) forwards += s + 2;
        EXPECT_EQ(map->forwards, forwards) << i;
        o.rule = "argmax";
        o.maxSteps = 128;
        auto jumpy = attribute(**hard, image, o);
        ASSERT_TRUE(jumpy.ok()) << jumpy.error();
        ASSERT_TRUE(jumpy->converged) << i;
        if (!*jumpy->converged) {
            ++notConverged;
            EXPECT_EQ(*jumpy->steps, 128);
            EXPECT_GT(*jumpy->completenessError, 0.01);
            EXPECT_NE(jumpy->convergence.find("the rule 'argmax' chooses cells"), std::string::npos) << jumpy->convergence;
        } else {
            EXPECT_TRUE(jumpy->convergence.empty());
        }
        o.maxSteps = 1024;
    }
    EXPECT_GE(notConverged, 1);
    // Without a tolerance: exactly the steps asked for, and nothing said about convergence.
    o = {};
    o.method = "integrated-gradients";
    o.rule = "soft";
    o.steps = 16;
    auto fixed = attribute(**soft, (*dataset)->sample(Split::Test, 4).image, o);
    ASSERT_TRUE(fixed.ok());
    EXPECT_EQ(*fixed->steps, 16);
    EXPECT_FALSE(fixed->converged.has_value());
    EXPECT_FALSE(fixed->tolerance.has_value());
}

TEST(Attribution, SmoothGradRepeatsItsMapForASeed) {
    test::TempDir dir;
    auto model = tinyPatch(dir);
    ASSERT_TRUE(model);
    AttributionOptions o;
    o.method = "smoothgrad";
    o.samples = 8;
    o.seed = 4;
    auto a = attribute(*model, blobImage(28), o), b = attribute(*model, blobImage(28), o);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->magnitude, b->magnitude);
    o.seed = 5;
    auto c = attribute(*model, blobImage(28), o);
    ASSERT_TRUE(c.ok());
    EXPECT_NE(a->magnitude, c->magnitude);
}

TEST(Attribution, GradCamNeedsAConvolutionalGrid) {
    auto linear = linearModel();
    AttributionOptions o;
    o.method = "gradcam";
    auto refused = attribute(*linear, rampImage(kSize), o);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), "linear test model has no convolutional grid for Grad-CAM");

    test::TempDir dir;
    auto model = tinyPatch(dir);
    ASSERT_TRUE(model);
    auto map = attribute(*model, blobImage(28), o);
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(map->rows, 7);
    for (double v : map->magnitude) EXPECT_GE(v, 0.0);
}

TEST(Attribution, MassInTheBoxAndPointingAreScoredAsAttentionIs) {
    // Weights only on the top-left quarter: the gradient lies there, in the first cell.
    auto w = torch::zeros({3, kSize * kSize});
    for (int y = 0; y < kSize / 2; ++y)
        for (int x = 0; x < kSize / 2; ++x) w[0][y * kSize + x] = 1.0f + x;
    LinearModel model(kSize, w, torch::zeros({3}));
    AttributionOptions o;
    o.target = 0;
    GroundTruth onIt{0, {Box{0, 0, kSize / 2.0, kSize / 2.0}}}, beside{0, {Box{kSize / 2.0, kSize / 2.0, 4, 4}}};
    auto hit = attribute(model, rampImage(kSize), o, onIt);
    ASSERT_TRUE(hit.ok()) << hit.error();
    EXPECT_NEAR(*hit->massInBox, 1.0, 1e-6);
    EXPECT_NEAR(*hit->massInBoxPixels, 1.0, 1e-6);
    EXPECT_TRUE(*hit->pointing);
    EXPECT_NEAR(*hit->boxArea, 0.25, 1e-12);
    auto miss = attribute(model, rampImage(kSize), o, beside);
    ASSERT_TRUE(miss.ok());
    EXPECT_NEAR(*miss->massInBox, 0.0, 1e-6);
    EXPECT_FALSE(*miss->pointing);
}

TEST(Attribution, OcclusionIsTheFallOfTheTargetsProbabilityPerCell) {
    auto model = linearModel();
    AttributionOptions o;
    o.method = "occlusion";
    o.target = 1;
    const Image im = rampImage(kSize);
    auto map = attribute(*model, im, o);
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(map->forwards, 5);  // the image and its 4 cells
    auto before = model->trace(im, "argmax", 0, "x"), after = model->trace(occludeCells(im, 2, 2, {3}), "argmax", 0, "x");
    ASSERT_TRUE(before.ok() && after.ok());
    const double fall = double(before->output.probs[1]) - after->output.probs[1];
    EXPECT_NEAR(map->signedMap[size_t(kSize * kSize - 1)], fall, 1e-6);  // the bottom-right cell's pixel
}

TEST(Attribution, BadInputIsOneLine) {
    auto model = linearModel();
    AttributionOptions o;
    o.target = 3;
    auto r = attribute(*model, rampImage(kSize), o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "target class 3 is out of range: the model has 3 classes (0-2)");
    o = {};
    o.method = "saliency";
    EXPECT_NE(attribute(*model, rampImage(kSize), o).error().find("unknown attribution method 'saliency'"), std::string::npos);
    o = {};
    o.method = "integrated-gradients";
    o.steps = 0;
    EXPECT_EQ(attribute(*model, rampImage(kSize), o).error(), "--steps must be at least 1, got 0");
    o.steps = 8;
    o.tolerance = 1.5;
    EXPECT_EQ(attribute(*model, rampImage(kSize), o).error(), "--tolerance must be a fraction between 0 and 1 (0.01: 1%), got 1.5");
    o.tolerance = 0.01;
    o.maxSteps = 4;
    EXPECT_EQ(attribute(*model, rampImage(kSize), o).error(), "--max-steps (4) must be at least --steps (8)");
    o.tolerance.reset();
    o.steps = 8;
    o.baseline = "image";
    o.baselineImage = Image::zeros(kSize + 1, kSize);
    EXPECT_EQ(attribute(*model, rampImage(kSize), o).error(),
              "the baseline image is 9x8 with 1 channel(s); the model takes 8x8 with 1");
    o = {};
    o.rule = "soft";
    EXPECT_NE(attribute(*model, rampImage(kSize), o).error().find("only argmax"), std::string::npos);
}

TEST(Attribution, JsonHasTheMapAndNullsForWhatWasNotMeasured) {
    auto model = linearModel();
    AttributionOptions o;
    auto map = attribute(*model, rampImage(kSize), o);
    ASSERT_TRUE(map.ok());
    const auto json = attributionToJson(*map, false, -1);
    EXPECT_NE(json.find("\"method\":\"gradient\""), std::string::npos);
    EXPECT_NE(json.find("\"completeness_error\":null"), std::string::npos);
    EXPECT_NE(json.find("\"mass_in_box\":null"), std::string::npos);
    EXPECT_NE(json.find("\"map\":[["), std::string::npos);
}

}  // namespace
}  // namespace saccade
