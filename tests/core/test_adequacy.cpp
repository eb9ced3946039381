// Inadequate observations: the signals of one run set, risk-coverage curves and their area on
// hand-computed cases, and the measurement on bundled models against `eval`.

#include <cmath>
#include <algorithm>
#include <limits>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/runs/adequacy.h"
#include "metrics/caption_metrics.h"
#include "data/dataset.h"
#include "models/attention_model.h"
#include "test_device.h"

using namespace saccade;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Four runs on a 2x2 grid over a 10x10 image, two classes.
RunSet handBuiltSet() {
    RunSet set;
    set.imageWidth = set.imageHeight = 10;
    set.steps = 1;
    set.gridRows = set.gridCols = 2;
    set.classNames = {"a", "b"};
    set.deterministic.output.label = 0;
    set.deterministic.output.probs = {0.7f, 0.3f};
    auto run = [](int label, std::vector<float> probs, int cell) {
        RunRecord r;
        r.label = label;
        r.probs = std::move(probs);
        r.cells = {cell};
        return r;
    };
    set.runs = {run(0, {0.9f, 0.1f}, 0), run(0, {0.9f, 0.1f}, 0), run(0, {0.6f, 0.4f}, 3), run(1, {0.2f, 0.8f}, 3)};
    return set;
}

}  // namespace

TEST(Adequacy, SignalsOfAHandBuiltRunSet) {
    const auto set = handBuiltSet();
    const auto v = adequacyOf(set, computeRunStats(set));
    EXPECT_DOUBLE_EQ(v[AdequacySignal::Agreement], 0.75);
    // Output histogram 3:1.
    EXPECT_NEAR(v[AdequacySignal::OutputEntropy], -(0.75 * std::log(0.75) + 0.25 * std::log(0.25)), 1e-12);
    // Mean prediction (0.65, 0.35); mean of the runs' entropies.
    auto h = [](double p) { return -(p * std::log(p) + (1 - p) * std::log(1 - p)); };
    EXPECT_NEAR(v[AdequacySignal::MutualInformation], h(0.65) - (2 * h(0.9) + h(0.6) + h(0.8)) / 4, 1e-6);
    // Cells 0 and 3 have centres (2.5, 2.5) and (7.5, 7.5), half the runs at each: RMS distance
    // from the mean (5, 5) is sqrt(2.5^2 + 2.5^2).
    EXPECT_NEAR(v[AdequacySignal::LookSpread], std::sqrt(12.5), 1e-9);
    EXPECT_NEAR(v[AdequacySignal::Confidence], 0.7, 1e-6);
}

TEST(Adequacy, RunsThatAllAgreeAndLookAtOnePlaceAreFullyAdequate) {
    auto set = handBuiltSet();
    for (auto& r : set.runs) {
        r.label = 0;
        r.cells = {2};
        r.probs = {0.9f, 0.1f};
    }
    const auto v = adequacyOf(set, computeRunStats(set));
    EXPECT_DOUBLE_EQ(v[AdequacySignal::Agreement], 1.0);
    EXPECT_DOUBLE_EQ(v[AdequacySignal::OutputEntropy], 0.0);
    EXPECT_NEAR(v[AdequacySignal::MutualInformation], 0.0, 1e-7);
    EXPECT_DOUBLE_EQ(v[AdequacySignal::LookSpread], 0.0);
}

TEST(Adequacy, MutualInformationIsUndefinedForCaptions) {
    auto set = handBuiltSet();
    set.outputKind = OutputKind::Caption;
    EXPECT_TRUE(std::isnan(adequacyOf(set, computeRunStats(set))[AdequacySignal::MutualInformation]));
}

TEST(Adequacy, RiskCoverageOnAHandComputedCase) {
    // Sorted by agreement: 0.9 right; a tie at 0.8 of one wrong and one right; 0.1 wrong.
    const std::vector<double> values = {0.8, 0.9, 0.1, 0.8};
    const std::vector<bool> correct = {false, true, false, true};
    const auto c = riskCoverage(AdequacySignal::Agreement, values, correct, {0.95, 0.6});
    ASSERT_TRUE(c.available);
    ASSERT_EQ(c.points.size(), 3u);
    EXPECT_EQ(c.points[0].kept, 1);
    EXPECT_DOUBLE_EQ(c.points[0].risk, 0.0);
    EXPECT_DOUBLE_EQ(c.points[0].threshold, 0.9);
    EXPECT_EQ(c.points[1].kept, 3);
    EXPECT_DOUBLE_EQ(c.points[1].coverage, 0.75);
    EXPECT_NEAR(c.points[1].risk, 1.0 / 3, 1e-12);
    EXPECT_DOUBLE_EQ(c.points[2].risk, 0.5);
    // The tie's error is spread over its two places: risks 0, 0.25, 1/3, 0.5.
    EXPECT_NEAR(c.aurc, (0 + 0.25 + 1.0 / 3 + 0.5) / 4, 1e-12);
    ASSERT_EQ(c.targets.size(), 2u);
    EXPECT_DOUBLE_EQ(c.targets[0].coverage, 0.25);
    EXPECT_DOUBLE_EQ(*c.targets[0].threshold, 0.9);
    EXPECT_DOUBLE_EQ(c.targets[1].coverage, 0.75);
    EXPECT_NEAR(c.targets[1].accuracy, 2.0 / 3, 1e-12);
    // 100% accuracy is reached only by keeping the most adequate image alone.
    EXPECT_EQ(coverageAt(c, 1.0).kept, 1);

    // A lower-is-adequate signal with the values mirrored ranks the same way.
    std::vector<double> mirrored;
    for (double v : values) mirrored.push_back(1 - v);
    const auto m = riskCoverage(AdequacySignal::OutputEntropy, mirrored, correct, {0.95});
    EXPECT_NEAR(m.aurc, c.aurc, 1e-12);
    EXPECT_NEAR(*m.targets[0].threshold, 0.1, 1e-12);
}

TEST(Adequacy, NoThresholdReachesAnImpossibleTarget) {
    // The confident answer is the wrong one: abstaining keeps the most confident image first.
    const auto c = riskCoverage(AdequacySignal::Confidence, {0.9, 0.5}, {false, true}, {0.99, 0.5});
    EXPECT_EQ(c.targets[0].kept, 0);
    EXPECT_FALSE(c.targets[0].threshold.has_value());
    EXPECT_DOUBLE_EQ(c.targets[0].coverage, 0.0);
    EXPECT_EQ(c.targets[1].kept, 2);
    EXPECT_DOUBLE_EQ(*c.targets[1].threshold, 0.5);
    EXPECT_DOUBLE_EQ(c.aurc, (1.0 + 0.5) / 2);
    const auto none = riskCoverage(AdequacySignal::Confidence, {0.9, 0.5}, {false, false}, {0.5});
    EXPECT_EQ(none.targets[0].kept, 0);
    EXPECT_DOUBLE_EQ(none.aurc, 1.0);
}

TEST(Adequacy, ANaNValueMakesTheSignalUnavailable) {
    EXPECT_FALSE(riskCoverage(AdequacySignal::MutualInformation, {0.1, kNaN}, {true, false}, {0.9}).available);
    EXPECT_FALSE(riskCoverage(AdequacySignal::Agreement, {}, {}, {0.9}).available);
}

TEST(Adequacy, InadequateIsTheSideAnAbstainingDeploymentDrops) {
    EXPECT_TRUE(isInadequate(AdequacySignal::Agreement, 0.4, 0.8));
    EXPECT_FALSE(isInadequate(AdequacySignal::Agreement, 0.8, 0.8));
    EXPECT_TRUE(isInadequate(AdequacySignal::OutputEntropy, 0.5, 0.2));
    EXPECT_FALSE(isInadequate(AdequacySignal::OutputEntropy, 0.1, 0.2));
    EXPECT_FALSE(isInadequate(AdequacySignal::MutualInformation, kNaN, 0.2));
    EXPECT_EQ(parseAdequacySignal("look-spread"), AdequacySignal::LookSpread);
    EXPECT_FALSE(parseAdequacySignal("spread").has_value());
}

TEST(Adequacy, FullCoverageAccuracyEqualsEvalAndTheOracleBoundsEverySignal) {
    auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset((*model)->info().dataset, {"", (*model)->info().seed});
    if (!dataset.ok()) GTEST_SKIP() << dataset.error();
    AdequacyOptions options;
    options.limit = 60;
    options.runs = 20;
    options.seed = 5;
    auto r = measureAdequacy(**model, **dataset, Split::Test, options);
    ASSERT_TRUE(r.ok()) << r.error();
    auto eval = (*model)->evaluate(**dataset, Split::Test, {"argmax"}, 60, 5);
    ASSERT_TRUE(eval.ok()) << eval.error();
    EXPECT_DOUBLE_EQ(r->accuracy, eval->rules.front().accuracy);
    ASSERT_EQ(r->images.size(), 60u);
    for (size_t i = 0; i < r->images.size(); ++i)
        EXPECT_EQ(r->images[i].prediction, eval->predictions.front()[i]) << "image " << i;
    EXPECT_EQ(r->deploymentRule, "argmax");
    EXPECT_EQ(r->trainingRule, "sample");
    EXPECT_TRUE(r->deploymentDiffers());
    ASSERT_EQ(r->curves.size(), size_t(kAdequacySignalCount));
    for (const auto& c : r->curves) {
        // The shift signals are measured on a model with sampled runs only when asked (--shifts).
        const bool shift = c.signal == AdequacySignal::ShiftAgreement || c.signal == AdequacySignal::ShiftLook;
        ASSERT_EQ(c.available, !shift) << signalInfo(c.signal).key;
        if (shift) continue;
        EXPECT_GE(c.aurc, r->oracleAurc - 1e-12) << signalInfo(c.signal).key;
        EXPECT_DOUBLE_EQ(c.points.back().coverage, 1.0);
        EXPECT_NEAR(c.points.back().risk, 1 - r->accuracy, 1e-12);
    }
    EXPECT_NEAR(r->randomAurc, 1 - r->accuracy, 1e-12);
    EXPECT_FALSE(r->bestSignal.empty());

    // The same seed gives the same values; another seed other sampled runs.
    auto again = measureAdequacy(**model, **dataset, Split::Test, options);
    ASSERT_TRUE(again.ok());
    auto withoutTime = [](const AdequacyReport& report) {
        auto j = nlohmann::json::parse(adequacyReportToJson(report));
        j.erase("seconds");
        return j;
    };
    EXPECT_EQ(withoutTime(*again), withoutTime(*r));
    options.seed = 6;
    auto other = measureAdequacy(**model, **dataset, Split::Test, options);
    ASSERT_TRUE(other.ok());
    int differ = 0;
    for (size_t i = 0; i < r->images.size(); ++i)
        differ += other->images[i].signals[AdequacySignal::Agreement] != r->images[i].signals[AdequacySignal::Agreement];
    EXPECT_GT(differ, 0);

    const auto j = nlohmann::json::parse(adequacyReportToJson(*r));
    EXPECT_EQ(j["schema"], "saccade.adequacy");
    EXPECT_EQ(j["deployment_differs_from_training"], true);
    EXPECT_EQ(j["per_image"].size(), 60u);
    EXPECT_EQ(j["signals"][0]["coverage_at"].size(), 2u);
}

TEST(Adequacy, RamSignalsUseGlimpseLocations) {
    auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/ram-fashion28.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("fashion28");
    if (!dataset.ok()) GTEST_SKIP() << dataset.error();
    AdequacyOptions options;
    options.limit = 20;
    options.runs = 10;
    auto r = measureAdequacy(**model, **dataset, Split::Test, options);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->deploymentRule, "mean");
    double spread = 0;
    for (const auto& im : r->images) spread += im.signals[AdequacySignal::LookSpread];
    EXPECT_GT(spread, 0);  // sampled glimpses do not all land on one point
    auto eval = (*model)->evaluate(**dataset, Split::Test, {"mean"}, 20, 1);
    ASSERT_TRUE(eval.ok());
    EXPECT_DOUBLE_EQ(r->accuracy, eval->rules.front().accuracy);
}

TEST(Adequacy, BadOptionsAndCancelAreOneLineErrors) {
    auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/ram-fashion28.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("fashion28");
    if (!dataset.ok()) GTEST_SKIP() << dataset.error();
    AdequacyOptions options;
    options.limit = 5;
    options.runs = 1;
    EXPECT_NE(measureAdequacy(**model, **dataset, Split::Test, options).error().find("--runs"), std::string::npos);
    options.runs = 5;
    options.targets = {1.5};
    EXPECT_NE(measureAdequacy(**model, **dataset, Split::Test, options).error().find("target"), std::string::npos);
    options.targets = {0.9};
    int calls = 0;
    auto cancelled = measureAdequacy(**model, **dataset, Split::Test, options, [&](double) { return ++calls < 2; });
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error(), "the adequacy measurement was cancelled");
    EXPECT_EQ(calls, 2);
    auto wrongSize = openDataset("translated-fashion60");
    if (wrongSize.ok()) {
        EXPECT_FALSE(measureAdequacy(**model, **wrongSize, Split::Test, options).ok());
    }
}

TEST(Adequacy, PerWordSignalsOfACaptionRunSet) {
    RunSet set;
    set.outputKind = OutputKind::Caption;
    set.imageWidth = set.imageHeight = 8;
    set.steps = 4;
    set.gridRows = set.gridCols = 2;
    set.deterministic.output.text = "a red circle";
    set.deterministic.classNames = {"<end>", "a", "red", "circle", "blue", "square"};
    for (const auto& [token, p] : std::vector<std::pair<std::string, float>>{{"a", 0.9f}, {"red", 0.6f}, {"circle", 0.5f},
                                                                             {"<end>", 0.8f}}) {
        TraceStep step;
        step.token = token;
        step.outputProbs.assign(6, 0.01f);
        const auto at = std::find(set.deterministic.classNames.begin(), set.deterministic.classNames.end(), token);
        step.outputProbs[size_t(at - set.deterministic.classNames.begin())] = p;
        set.deterministic.steps.push_back(step);
    }
    auto run = [](std::string text, std::vector<int> cells) {
        RunRecord r;
        r.text = std::move(text);
        r.cells = std::move(cells);
        return r;
    };
    set.runs = {run("a red circle", {0, 0, 0, 0}), run("a blue circle", {0, 3, 0, 0}), run("a red square which", {0, 3, 3, 0})};
    const auto words = wordAdequacyOf(set);
    ASSERT_EQ(words.size(), 3u);
    EXPECT_EQ(words[1].word, "red");
    EXPECT_DOUBLE_EQ(words[0].signals[AdequacySignal::Agreement], 1.0);
    EXPECT_NEAR(words[1].signals[AdequacySignal::Agreement], 2.0 / 3, 1e-12);
    EXPECT_NEAR(words[2].signals[AdequacySignal::Agreement], 2.0 / 3, 1e-12);
    EXPECT_DOUBLE_EQ(words[0].signals[AdequacySignal::OutputEntropy], 0.0);
    EXPECT_NEAR(words[1].signals[AdequacySignal::OutputEntropy], -(2.0 / 3 * std::log(2.0 / 3) + 1.0 / 3 * std::log(1.0 / 3)),
                1e-12);
    EXPECT_NEAR(words[1].signals[AdequacySignal::Confidence], 0.6, 1e-6);
    EXPECT_TRUE(std::isnan(words[0].signals[AdequacySignal::MutualInformation]));
    // Step 1: cells 0 (centre 2, 2) once and 3 (centre 6, 6) twice: RMS distance from the mean.
    const double mean = (2 + 6 + 6) / 3.0;
    const double rms = std::sqrt(2 * ((2 - mean) * (2 - mean) + 2 * (6 - mean) * (6 - mean)) / 3);
    EXPECT_NEAR(words[1].signals[AdequacySignal::LookSpread], rms, 1e-9);
    EXPECT_DOUBLE_EQ(words[0].signals[AdequacySignal::LookSpread], 0.0);
    // Classifiers have no words.
    EXPECT_TRUE(wordAdequacyOf(handBuiltSet()).empty());
}

TEST(Adequacy, CaptionersGetPerWordCurvesAndExactMatchAtFullCoverage) {
    auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/caption-hard-scenes64.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("scenes64", {"", (*model)->info().seed});
    ASSERT_TRUE(dataset.ok()) << dataset.error();
    AdequacyOptions options;
    options.limit = 8;
    options.runs = 4;
    auto r = measureAdequacy(**model, **dataset, Split::Test, options);
    ASSERT_TRUE(r.ok()) << r.error();
    auto eval = (*model)->evaluate(**dataset, Split::Test, {(*model)->deterministicRule()}, 8, 1);
    ASSERT_TRUE(eval.ok()) << eval.error();
    EXPECT_DOUBLE_EQ(r->accuracy, eval->rules.front().accuracy);
    EXPECT_FALSE(r->curves[int(AdequacySignal::MutualInformation)].available);
    ASSERT_EQ(r->wordCurves.size(), size_t(kAdequacySignalCount));
    EXPECT_TRUE(r->wordCurves[int(AdequacySignal::Agreement)].available);
    EXPECT_FALSE(r->wordCurves[int(AdequacySignal::MutualInformation)].available);
    size_t words = 0, right = 0;
    for (const auto& im : r->images) {
        EXPECT_EQ(im.words.size(), splitWords(im.caption).size());
        words += im.words.size();
        for (const auto& w : im.words) right += w.correct;
        if (im.correct) {
            for (const auto& w : im.words) EXPECT_TRUE(w.correct) << im.caption;
        }
    }
    EXPECT_NEAR(r->wordAccuracy, double(right) / double(words), 1e-12);
    EXPECT_EQ(r->wordCurves[0].points.back().kept, std::int64_t(words));
    const auto j = nlohmann::json::parse(adequacyReportToJson(*r));
    EXPECT_EQ(j["word_signals"].size(), size_t(kAdequacySignalCount));
    EXPECT_EQ(j["per_image"][0]["words"].size(), r->images[0].words.size());
}
