// One word of a captioner's own caption as a classifier of the image (AttentionModel::wordForward)
// and its attribution maps beside the attention at that word (analysis/attribution.h,
// analysis/caption_attribution.h), on the bundled soft captioner and scenes64's test split:
// the teacher-forced forward says the caption's word, its gradient is the finite difference's,
// integrated gradients are complete, and the scores are the direct computations.

#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/attribution_gradients.h"
#include "analysis/attribution/caption_attribution.h"
#include "analysis/attribution/caption_faithfulness.h"
#include "data/dataset.h"
#include "metrics/attention_regions.h"
#include "models/attention_model.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "test_device.h"
#include "trace/ground_truth.h"

namespace saccade {
namespace {

struct CaptionWordFixture {
    std::shared_ptr<AttentionModel> model;
    std::shared_ptr<const Dataset> dataset;
};

CaptionWordFixture softCaptioner() {
    auto model = loadAttentionModel(std::string(SACCADE_SAMPLES_DIR) + "/models/caption-soft-scenes64.pt", test::testDevice());
    EXPECT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("scenes64");
    EXPECT_TRUE(dataset.ok()) << dataset.error();
    return {*model, *dataset};
}

// The first step of the caption whose word names an object.
int firstObjectStep(const Trace& t) {
    for (std::size_t s = 0; s < t.steps.size(); ++s)
        if (t.steps[s].wordObject >= 0) return int(s);
    return -1;
}

std::vector<std::string> captionTokens(const Trace& t) {
    std::vector<std::string> words;
    for (const auto& s : t.steps) words.push_back(s.token);
    return words;
}

TEST(CaptionAttribution, TheWordForwardSaysTheCaptionsWordWithItsProbabilities) {
    auto [model, dataset] = softCaptioner();
    ASSERT_TRUE(model && dataset);
    const Sample sample = dataset->sample(Split::Test, 0);
    auto t = model->trace(sample.image, "soft", 1, "scenes64:test:0", sceneGroundTruth(sample));
    ASSERT_TRUE(t.ok()) << t.error();
    const auto words = captionTokens(*t);
    const auto vocabulary = model->classNames();
    auto x = modelInput(sample.image, model->imageSize(), model->channels(), torch::Device(model->deviceName()));
    ASSERT_TRUE(x.ok());
    for (int step = 0; step < int(words.size()); ++step) {
        auto f = model->wordForward(words, step, "");
        ASSERT_TRUE(f.ok()) << f.error();
        EXPECT_EQ((*f)->defaultRule(), "soft");
        torch::NoGradGuard noGrad;
        const auto probs = torch::softmax((*f)->logits(*x, "soft"), 1)[0].to(torch::kCPU);
        const auto id = std::find(vocabulary.begin(), vocabulary.end(), words[size_t(step)]) - vocabulary.begin();
        EXPECT_EQ(probs.argmax().item<std::int64_t>(), id) << "step " << step << " '" << words[size_t(step)] << "'";
        // The decoder masks <start> and <pad>; they carry next to no mass here.
        const auto& traced = t->steps[size_t(step)].outputProbs;
        for (std::size_t w = 3; w < traced.size(); ++w) EXPECT_NEAR(probs[long(w)].item<float>(), traced[w], 2e-3);
    }
    // The step after the caption's <end> has no word; a rule with sampling is not differentiated.
    EXPECT_FALSE(model->wordForward(words, int(words.size()), "").ok());
    EXPECT_FALSE(model->wordForward(words, -1, "").ok());
    EXPECT_FALSE(model->wordForward(words, 1, "sample").ok());
    EXPECT_TRUE(model->wordForward(words, 1, "argmax").ok());
}

// The input gradient is the derivative of the word's logit wherever the logit has one. Not at a
// scenes64 image itself: its flat colour regions give equal conv outputs inside the encoder's 2x2
// max-pool windows (on test scene 1, 4,526 of the first pool's 16,384 windows tie on a positive
// maximum), where the logit has a kink and autograd returns one subgradient (the first index of
// each tie: 0.791 along the gradient's own direction, while the central difference converges to
// 0.645 at any step, the mean of one-sided slopes of 0.642 and 0.648). The fused kernels are not
// involved: the double-precision forward, which takes ATen's reference path everywhere, gives the
// same 0.791. So the check runs at the image plus noise of 0.01, where no window ties, with steps
// small enough (2e-3, a pixel moves by ~2e-5) that the differences cross no near-tie: there
// autograd and the difference agree to 0.2% in float, to 1e-6 in double.
TEST(CaptionAttribution, TheWordLogitsGradientIsTheFiniteDifference) {
    auto [model, dataset] = softCaptioner();
    ASSERT_TRUE(model && dataset);
    const Sample sample = dataset->sample(Split::Test, 1);
    auto t = model->trace(sample.image, "soft", 1, "scenes64:test:1", sceneGroundTruth(sample));
    ASSERT_TRUE(t.ok()) << t.error();
    const int step = firstObjectStep(*t);
    ASSERT_GE(step, 0) << t->output.text;
    auto f = model->wordForward(captionTokens(*t), step, "soft");
    ASSERT_TRUE(f.ok()) << f.error();
    auto image = modelInput(sample.image, model->imageSize(), model->channels(), (*f)->device());
    ASSERT_TRUE(image.ok());
    torch::manual_seed(7);
    const auto x = *image + 0.01 * torch::randn(image->sizes()).to(image->device());  // off the max-pool ties
    const auto vocabulary = model->classNames();
    const int target = int(std::find(vocabulary.begin(), vocabulary.end(), t->steps[size_t(step)].token) - vocabulary.begin());
    const auto g = inputGradients(**f, x, "soft", target).to(torch::kCPU, torch::kDouble);
    // Directions of unit norm along the gradient and halfway to random ones.
    const auto unit = [](const torch::Tensor& v) { return v / v.norm(); };
    const auto along = unit(g.to(torch::kFloat).to(x.device()));
    torch::manual_seed(3);
    for (int direction = 0; direction < 3; ++direction) {
        const auto v = direction == 0 ? along : unit(along + unit(torch::randn(x.sizes()).to(x.device())));
        const double eps = 2e-3;
        const auto ends = targetLogits(**f, torch::cat({x + eps * v, x - eps * v}), "soft", target).to(torch::kDouble);
        const double difference = (ends[0].item<double>() - ends[1].item<double>()) / (2 * eps);
        const double analytic = (g * v.to(torch::kCPU, torch::kDouble)).sum().item<double>();
        EXPECT_GT(analytic, 0.0);
        EXPECT_NEAR(analytic, difference, 0.01 * std::abs(analytic)) << "direction " << direction;
    }
}

TEST(CaptionAttribution, IntegratedGradientsOfAWordAreCompleteAndScoredOnTheNamedObject) {
    auto [model, dataset] = softCaptioner();
    ASSERT_TRUE(model && dataset);
    const Sample sample = dataset->sample(Split::Test, 2);
    const GroundTruth truth = sceneGroundTruth(sample);
    auto t = model->trace(sample.image, "soft", 1, "scenes64:test:2", truth);
    ASSERT_TRUE(t.ok()) << t.error();
    const int step = firstObjectStep(*t);
    ASSERT_GE(step, 0) << t->output.text;
    AttributionOptions o;
    o.method = "integrated-gradients";
    auto map = attribute(*model, sample.image, o, truth);  // no step: the first object word
    ASSERT_TRUE(map.ok()) << map.error();
    ASSERT_TRUE(map->step);
    EXPECT_EQ(*map->step, step);
    EXPECT_EQ(map->word, t->steps[size_t(step)].token);
    EXPECT_EQ(map->caption, t->output.text);
    EXPECT_EQ(map->rule, "soft");
    EXPECT_EQ(map->target, map->predicted);
    ASSERT_TRUE(map->completenessError);
    std::cout << "integrated gradients of '" << map->word << "': completeness error " << 100 * *map->completenessError
              << "%\n";
    EXPECT_LT(*map->completenessError, 0.02);
    // The map sums to 1 over the model's 8x8 cells; its mass and the attention's are the direct ones.
    EXPECT_EQ(map->rows, model->cellGrid().side);
    EXPECT_NEAR(std::accumulate(map->cells.begin(), map->cells.end(), 0.0), 1.0, 1e-9);
    ASSERT_EQ(map->object, t->steps[size_t(step)].wordObject);
    const Box& box = truth.boxes[size_t(map->object)];
    GridDistribution cells{map->rows, map->cols, {}};
    for (double c : map->cells) cells.probs.push_back(float(c));
    ASSERT_TRUE(map->massInBox);
    EXPECT_GE(*map->massInBox, 0.0);
    EXPECT_LE(*map->massInBox, 1.0);
    EXPECT_NEAR(*map->massInBox, gridMassInBox(cells, map->width, map->height, box), 1e-5);
    ASSERT_TRUE(map->attentionMassInBox);
    EXPECT_NEAR(*map->attentionMassInBox, gridMassInBox(*t->steps[size_t(step)].grid, 64, 64, box), 1e-9);
    EXPECT_NEAR(*map->boxArea, box.w * box.h / (64.0 * 64.0), 1e-9);
}

TEST(CaptionAttribution, EveryMethodButRolloutGivesAWordsMapAndBadStepsAreRefused) {
    auto [model, dataset] = softCaptioner();
    ASSERT_TRUE(model && dataset);
    const Sample sample = dataset->sample(Split::Test, 3);
    const GroundTruth truth = sceneGroundTruth(sample);
    for (const auto& method : attributionMethods()) {
        AttributionOptions o;
        o.method = method;
        o.step = 1;
        o.samples = 4;
        auto map = attribute(*model, sample.image, o, truth);
        if (method == "gradient-rollout") {
            ASSERT_FALSE(map.ok());
            EXPECT_NE(map.error().find("no transformer attention"), std::string::npos) << map.error();
            continue;
        }
        ASSERT_TRUE(map.ok()) << method << ": " << map.error();
        EXPECT_EQ(*map->step, 1);
        EXPECT_EQ(map->target, map->predicted) << method;
        const double sum = std::accumulate(map->cells.begin(), map->cells.end(), 0.0);
        EXPECT_TRUE(std::abs(sum - 1.0) < 1e-9 || sum == 0.0) << method << " " << sum;
        if (method == "occlusion") EXPECT_EQ(map->forwards, 1 + 64);
    }
    AttributionOptions past;
    past.step = 40;
    auto refused = attribute(*model, sample.image, past, truth);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("step 40 is past the end of the caption"), std::string::npos) << refused.error();
}

TEST(CaptionAttribution, TheTablesAttentionIsTheCaptionFaithfulnessMass) {
    auto [model, dataset] = softCaptioner();
    ASSERT_TRUE(model && dataset);
    CaptionAttributionOptions o;
    o.methods = {"attention", "gradient", "gradcam"};
    o.limit = 4;
    auto r = compareCaptionMaps(*model, *dataset, Split::Test, o);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_EQ(r->maps.size(), 3u);
    EXPECT_GT(r->words, 0);
    CaptionFaithfulnessOptions f;
    f.limit = 4;
    f.fractions = {0.0};
    auto faithfulness = measureCaptionFaithfulness(*model, *dataset, Split::Test, f);
    ASSERT_TRUE(faithfulness.ok()) << faithfulness.error();
    EXPECT_EQ(r->words, faithfulness->words);
    EXPECT_NEAR(r->maps[0].massOnObject, faithfulness->massOnObject, 1e-9);
    EXPECT_NEAR(r->uniformMass, faithfulness->uniformMass, 1e-9);
    for (const auto& m : r->maps) {
        EXPECT_GE(m.massOnObject, 0.0);
        EXPECT_LE(m.massOnObject, 1.0);
        EXPECT_GE(m.pointing, 0.0);
        EXPECT_LE(m.pointing, 1.0);
    }
    // A map the captioner cannot give is left out with the reason; alone, it is the error.
    o.methods = {"attention", "rollout"};
    auto rollout = compareCaptionMaps(*model, *dataset, Split::Test, o);
    ASSERT_TRUE(rollout.ok()) << rollout.error();
    ASSERT_EQ(rollout->maps.size(), 1u);
    EXPECT_NEAR(rollout->maps[0].massOnObject, r->maps[0].massOnObject, 1e-12);
    ASSERT_EQ(rollout->omitted.size(), 1u);
    EXPECT_NE(rollout->omitted[0].second.find("has no rollout"), std::string::npos) << rollout->omitted[0].second;
    o.methods = {"rollout"};
    auto alone = compareCaptionMaps(*model, *dataset, Split::Test, o);
    ASSERT_FALSE(alone.ok());
    EXPECT_NE(alone.error().find("has no rollout"), std::string::npos) << alone.error();
}

}  // namespace
}  // namespace saccade
