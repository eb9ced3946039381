// The dataset comparison: every rule's accuracy, accuracy against K, the training rule named,
// and the images where sample and the deterministic rule disagree.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/runs/dataset_comparison.h"
#include "data/dataset.h"
#include "models/attention_model.h"
#include "test_device.h"

using namespace saccade;

TEST(DatasetComparison, TrainingRulesAreNamedFromTheTrainingMode) {
    EXPECT_STREQ(traitsOf(TrainingMode::Hard).trainingRule, "sample");
    EXPECT_STREQ(traitsOf(TrainingMode::Reinforce).trainingRule, "sample");
    EXPECT_STREQ(traitsOf(TrainingMode::Soft).trainingRule, "soft");
    EXPECT_STREQ(traitsOf(TrainingMode::Gumbel).trainingRule, "gumbel");
    EXPECT_TRUE(isTrainingRule("sample", "sample"));
    EXPECT_FALSE(isTrainingRule("ksample:10", "sample"));
    EXPECT_TRUE(isTrainingRule("gumbel:0.5", "gumbel"));
    EXPECT_FALSE(isTrainingRule("argmax", "soft"));
}

TEST(DatasetComparison, DisagreementsAndTheKCurveFollowTheEvaluatedOutputs) {
    auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/ram-fashion28.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("fashion28");
    if (!dataset.ok()) GTEST_SKIP() << dataset.error();
    const auto rules = defaultComparisonRules(**model);
    EXPECT_EQ(rules, (std::vector<std::string>{"sample", "mean", "ksample:1", "ksample:2", "ksample:5", "ksample:10",
                                                "ksample:20", "random"}));
    // Rules given without sample and mean get them added: the disagreement needs both.
    auto c = compareOnDataset(**model, **dataset, Split::Test, {"ksample:5", "ksample:2"}, 120, 3);
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_EQ(c->deterministicRule, "mean");
    EXPECT_EQ(c->trainingRule, "sample");
    ASSERT_EQ(c->report.rules.size(), 4u);
    EXPECT_EQ(c->report.labels.size(), 120u);
    const auto& sample = rulePredictions(c->report, "sample");
    const auto& mean = rulePredictions(c->report, "mean");
    std::vector<std::int64_t> expected;
    for (size_t i = 0; i < sample.size(); ++i)
        if (sample[i] != mean[i]) expected.push_back(std::int64_t(i));
    EXPECT_EQ(c->disagree, expected);
    EXPECT_FALSE(expected.empty());  // a RAM's sampled glimpses change some answers
    EXPECT_DOUBLE_EQ(c->disagreement, double(expected.size()) / 120);
    EXPECT_THROW(rulePredictions(c->report, "soft"), std::out_of_range);
    // The K curve is sorted by K and carries each ksample rule's accuracy.
    ASSERT_EQ(c->kCurve.size(), 2u);
    EXPECT_EQ(c->kCurve[0].k, 2);
    EXPECT_EQ(c->kCurve[1].k, 5);
    EXPECT_DOUBLE_EQ(c->kCurve[1].accuracy, c->report.rules[0].accuracy);
    EXPECT_LE(c->kCurve[0].low, c->kCurve[0].accuracy);
    EXPECT_GE(c->kCurve[0].high, c->kCurve[0].accuracy);

    const auto j = nlohmann::json::parse(datasetComparisonToJson(*c));
    EXPECT_EQ(j["schema"], "saccade.compare-dataset");
    EXPECT_EQ(j["version"], 1);
    EXPECT_EQ(j["accuracy_vs_k"].size(), 2u);
    EXPECT_EQ(j["sample_vs_deterministic"]["images"].size(), expected.size());
    for (const auto& r : j["rules"]) EXPECT_EQ(r["training_rule"].get<bool>(), r["rule"] == "sample");

    // The same seed gives the same comparison; a bad rule is refused.
    auto again = compareOnDataset(**model, **dataset, Split::Test, {"ksample:5", "ksample:2"}, 120, 3);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->disagree, c->disagree);
    EXPECT_FALSE(compareOnDataset(**model, **dataset, Split::Test, {"soft"}, 10, 3).ok());
}

// A case listed by an evaluation opens with the same answer: image i under sample is the trace
// with evaluationSeed(seed, i), for every model family.
TEST(DatasetComparison, EveryListedSampleAnswerIsTheTraceWithTheEvaluationSeed) {
    struct Case {
        const char* model;
        const char* dataset;
    };
    for (const auto& c : {Case{"patch-hard-fashion60.pt", "translated-fashion60"}, Case{"ram-fashion28.pt", "fashion28"},
                          Case{"caption-hard-scenes64.pt", "scenes64"}}) {
        auto model = loadAttentionModel(std::string(SACCADE_SAMPLES_DIR "/models/") + c.model, test::testDevice());
        ASSERT_TRUE(model.ok()) << model.error();
        auto dataset = openDataset(c.dataset, {"", (*model)->info().seed});
        if (!dataset.ok()) continue;  // Fashion-MNIST missing: the scenes still run
        const std::uint64_t seed = 11;
        const std::int64_t n = 12;
        auto report = (*model)->evaluate(**dataset, Split::Test, {"sample"}, n, seed);
        ASSERT_TRUE(report.ok()) << report.error();
        for (std::int64_t i = 0; i < n; ++i) {
            const auto sample = (*dataset)->sample(Split::Test, i);
            auto trace = (*model)->trace(sample.image, "sample", evaluationSeed(seed, i), "case");
            ASSERT_TRUE(trace.ok()) << trace.error();
            if (report->outputKind == OutputKind::Caption)
                EXPECT_EQ(report->outputNames[size_t(report->predictions[0][size_t(i)])], trace->output.text)
                    << c.model << " image " << i;
            else
                EXPECT_EQ(report->predictions[0][size_t(i)], trace->output.label) << c.model << " image " << i;
        }
    }
}
