// Views of a model without sampled runs: its rules compared on a dataset, adequacy from its
// deterministic traces and small seeded shifts, and faithfulness on a dataset without boxes (the
// box figures not measured, never 0), on the hand-made PeakModel whose figures follow from the
// images.

#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/runs/adequacy.h"
#include "analysis/attribution/faithfulness.h"
#include "analysis/runs/rule_comparison.h"
#include "analysis/runs/shift_agreement.h"
#include "peak_model.h"

using namespace saccade;
using test::PeakModel;
using test::SquareDataset;

namespace {

// The cell of the 3x3 grid (4 px cells) with the most white pixels, counted here on its own.
int whitestCell(const Image& image) {
    int best = 0, bestCount = -1;
    for (int cell = 0; cell < 9; ++cell) {
        int count = 0;
        for (int y = (cell / 3) * 4; y < (cell / 3) * 4 + 4; ++y)
            for (int x = (cell % 3) * 4; x < (cell % 3) * 4 + 4; ++x) count += image.at(x, y) > 0;
        if (count > bestCount) best = cell, bestCount = count;
    }
    return best;
}

Box cellOf(int cell) { return Box{double(cell % 3) * 4, double(cell / 3) * 4, 4, 4}; }

Image squareAt(int x0, int y0) {
    Image image = Image::zeros(12, 12, 1);
    for (int y = y0; y < y0 + 4; ++y)
        for (int x = x0; x < x0 + 4; ++x) image.at(x, y) = 255;
    return image;
}

}  // namespace

TEST(RuleComparison, RulesOfADeterministicModelFollowTheBoxes) {
    PeakModel model;
    SquareDataset data(/*boxes=*/true);
    EXPECT_EQ(defaultRuleComparisonRules(model), (std::vector<std::string>{"peak", "centre"}));
    auto c = compareRulesOnDataset(model, data, Split::Test, {"peak", "centre"}, 0, 1);
    ASSERT_TRUE(c.ok()) << c.error();
    ASSERT_EQ(c->images, 9);
    EXPECT_EQ(c->boxed, 9);
    std::int64_t right = 0, samePeak = 0;
    double massPeak = 0, massCentre = 0, hitsPeak = 0, hitsCentre = 0;
    for (int i = 0; i < 9; ++i) {
        const Sample s = data.sample(Split::Test, i);
        const int peak = whitestCell(s.image);
        right += (peak % 3 == 2 ? 1 : 0) == s.label;
        samePeak += peak == 4;
        massPeak += cellOf(peak).intersectionArea(s.box) / 16;
        massCentre += cellOf(4).intersectionArea(s.box) / 16;
        hitsPeak += cellOf(peak).intersectionArea(s.box) > 0;
        hitsCentre += cellOf(4).intersectionArea(s.box) > 0;
    }
    EXPECT_EQ(right, 8);  // image 5's square (x 7..10) peaks in the right column but is labelled left
    ASSERT_EQ(c->rules.size(), 2u);
    for (const auto& r : c->rules) EXPECT_EQ(r.accuracy.correct, right) << r.rule;  // one answer under every rule
    EXPECT_NEAR(*c->rules[0].massInBox, massPeak / 9, 1e-12);
    EXPECT_NEAR(*c->rules[1].massInBox, massCentre / 9, 1e-12);
    EXPECT_NEAR(*c->rules[0].pointing, hitsPeak / 9, 1e-12);
    EXPECT_NEAR(*c->rules[1].pointing, hitsCentre / 9, 1e-12);
    EXPECT_GT(*c->rules[0].massInBox, *c->rules[1].massInBox);
    ASSERT_EQ(c->agreement.size(), 1u);
    EXPECT_EQ(c->agreement[0].same, samePeak);
    EXPECT_NEAR(c->agreement[0].fraction, double(samePeak) / 9, 1e-12);
    const auto j = nlohmann::json::parse(ruleComparisonToJson(*c));
    EXPECT_EQ(j["schema"], "saccade.compare-rules");
    EXPECT_EQ(j["rules"][1]["rule"], "centre");
}

TEST(RuleComparison, WithoutBoxesTheBoxFiguresAreNotMeasured) {
    PeakModel model;
    SquareDataset data(/*boxes=*/false);
    auto c = compareRulesOnDataset(model, data, Split::Test, {"peak", "centre"}, 4, 1);
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_EQ(c->images, 4);
    EXPECT_EQ(c->boxed, 0);
    EXPECT_FALSE(c->rules[0].massInBox.has_value());
    EXPECT_FALSE(c->rules[0].pointing.has_value());
    const auto j = nlohmann::json::parse(ruleComparisonToJson(*c));
    EXPECT_TRUE(j["rules"][0]["mass_in_box"].is_null());
    EXPECT_TRUE(j["rules"][0]["pointing"].is_null());
    // One rule has figures but no pair to agree; none is an error; an unknown one fails with the
    // model's own words.
    auto one = compareRulesOnDataset(model, data, Split::Test, {"peak"}, 4, 1);
    ASSERT_TRUE(one.ok()) << one.error();
    EXPECT_TRUE(one->agreement.empty());
    EXPECT_EQ(one->rules[0].accuracy.n, 4);
    EXPECT_FALSE(compareRulesOnDataset(model, data, Split::Test, {}, 4, 1).ok());
    auto unknown = compareRulesOnDataset(model, data, Split::Test, {"peak", "rollout"}, 4, 1);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().find("not a rule of the peak model"), std::string::npos) << unknown.error();
}

TEST(ShiftAgreement, ShiftsMoveTheImageAndAreSeeded) {
    const Image image = squareAt(4, 4);
    const Image moved = shiftImage(image, 2, -1);
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 12; ++x)
            EXPECT_EQ(moved.at(x, y), x >= 6 && x < 10 && y >= 3 && y < 7 ? 255 : 0) << x << "," << y;
    const auto a = seededShifts(5, 3, 20, 2), b = seededShifts(5, 3, 20, 2), other = seededShifts(6, 3, 20, 2);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, other);
    ASSERT_EQ(a.size(), 20u);
    for (const auto& [dx, dy] : a) {
        EXPECT_TRUE(dx != 0 || dy != 0);
        EXPECT_LE(std::abs(dx), 2);
        EXPECT_LE(std::abs(dy), 2);
    }
}

TEST(ShiftAgreement, AnswerAndLookOnKnownShifts) {
    // A square at x 7..10, y 4..7: its whitest cell is 5 (right column), answer 1.
    PeakModel model;
    const Image image = squareAt(7, 4);
    auto reference = model.trace(image, "peak", 1, "square");
    ASSERT_TRUE(reference.ok());
    ASSERT_EQ(reference->output.label, 1);
    // (-1, 0): x 6..9 ties columns 1 and 2, cell 4 wins: answer 0; cell 4's centre shifted back
    //          (x 7) is still in column 1: a different cell.
    // (-2, 0): x 5..8, cell 4: answer 0; its centre shifted back (x 8) is in column 2: the same cell.
    // (0, 1):  y 5..8 mostly in row 1, cell 5: answer 1, the same cell.
    auto a = measureShiftAgreement(model, image, *reference, "peak", 1, {{-1, 0}, {-2, 0}, {0, 1}});
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->copies, 3);
    EXPECT_NEAR(a->answer, 1.0 / 3, 1e-12);
    EXPECT_NEAR(a->look, 2.0 / 3, 1e-12);
}

TEST(Adequacy, ADeterministicModelGetsTheSignalsThatNeedNoSampling) {
    PeakModel model;
    SquareDataset data(/*boxes=*/true);
    AdequacyOptions o;
    o.limit = 0;
    o.seed = 3;
    o.targets = {0.9};
    auto r = measureAdequacy(model, data, Split::Test, o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->runs, 0);
    EXPECT_EQ(r->shifts, kDefaultShifts);  // the default on a model without sampled runs
    ASSERT_EQ(r->images.size(), 9u);
    EXPECT_NEAR(r->accuracy, 8.0 / 9, 1e-12);
    const double h = -(0.9 * std::log(0.9) + 0.1 * std::log(0.1));
    for (const auto& im : r->images) {
        EXPECT_TRUE(std::isnan(im.signals[AdequacySignal::Agreement]));
        EXPECT_NEAR(im.signals[AdequacySignal::Confidence], 0.9, 1e-6);
        EXPECT_NEAR(im.signals[AdequacySignal::PredictionEntropy], h, 1e-6);
        const double shift = im.signals[AdequacySignal::ShiftAgreement];
        EXPECT_GE(shift, 0.0);
        EXPECT_LE(shift, 1.0);
        EXPECT_DOUBLE_EQ(shift * kDefaultShifts, std::round(shift * kDefaultShifts));  // a count of copies
    }
    EXPECT_FALSE(r->curves[int(AdequacySignal::Agreement)].available);
    EXPECT_TRUE(r->curves[int(AdequacySignal::ShiftAgreement)].available);
    EXPECT_TRUE(r->curves[int(AdequacySignal::ShiftLook)].available);
    // Image 0's square (0..3, 0..3) fills cell 0: any shift of 1-2 px keeps cell 0 the whitest
    // (it keeps at least 2x2 of the 4x4 square), so every copy answers 0 and looks at cell 0.
    EXPECT_DOUBLE_EQ(r->images[0].signals[AdequacySignal::ShiftAgreement], 1.0);
    // The same seed gives the same figures; the JSON says what was not measured.
    auto again = measureAdequacy(model, data, Split::Test, o);
    ASSERT_TRUE(again.ok());
    for (size_t i = 0; i < 9; ++i)
        for (auto s : {AdequacySignal::ShiftAgreement, AdequacySignal::ShiftLook})
            EXPECT_EQ(r->images[i].signals[s], again->images[i].signals[s]) << i;
    const auto j = nlohmann::json::parse(adequacyReportToJson(*r));
    EXPECT_EQ(j["runs"], 0);
    EXPECT_TRUE(j["run_seeds"].is_null());
    EXPECT_TRUE(j["per_image"][0]["agreement"].is_null());
    EXPECT_EQ(j["shifts"], kDefaultShifts);
    // No shifts asked: those signals are not measured either.
    o.shifts = 0;
    auto plain = measureAdequacy(model, data, Split::Test, o);
    ASSERT_TRUE(plain.ok());
    EXPECT_FALSE(plain->curves[int(AdequacySignal::ShiftAgreement)].available);
    EXPECT_TRUE(plain->curves[int(AdequacySignal::Confidence)].available);
}

TEST(Faithfulness, WithoutBoxesTheBoxFiguresAreNullAndDeletionStillMeasured) {
    PeakModel model;
    SquareDataset data(/*boxes=*/false);
    FaithfulnessOptions o;
    o.limit = 9;
    o.saliencyImages = 9;
    o.fractions = {0.0, 1.0};
    std::vector<double> progress;
    auto r = measureFaithfulness(model, data, Split::Test, o, [&](double f) {
        progress.push_back(f);
        return true;
    });
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->rows, 3);  // the model's cell grid
    EXPECT_EQ(r->boxed, 0);
    EXPECT_TRUE(r->massPerStep.empty());
    EXPECT_FALSE(r->uniformMass.has_value());
    EXPECT_FALSE(r->expectedCalibrationError.has_value());
    // Deletion: nothing removed keeps the 8 of 9 right; everything removed leaves a black image,
    // whose whitest cell is 0 (answer 0): right on the 8 images labelled 0.
    ASSERT_EQ(r->deletion.size(), 2u);
    EXPECT_NEAR(r->deletion[0].accuracyAttention, 8.0 / 9, 1e-12);
    EXPECT_NEAR(r->deletion[1].accuracyAttention, 8.0 / 9, 1e-12);
    EXPECT_NEAR(r->deletion[1].accuracyRandom, 8.0 / 9, 1e-12);
    // Saliency has ranks only where occluding the attended cell changes the answer; there the map
    // and the saliency both single out that cell: rho = 1.
    std::int64_t ranked = 0;
    for (int i = 0; i < 9; ++i) {
        const Sample s = data.sample(Split::Test, i);
        const int peak = whitestCell(s.image);
        ranked += (peak % 3 == 2) != (whitestCell(occludeCells(s.image, 3, 3, {peak})) % 3 == 2);
    }
    ASSERT_GT(ranked, 0);
    EXPECT_EQ(r->correlationImages, ranked);
    ASSERT_TRUE(r->rankCorrelation.has_value());
    EXPECT_NEAR(*r->rankCorrelation, 1.0, 1e-12);
    ASSERT_FALSE(progress.empty());
    EXPECT_NEAR(progress.back(), 1.0, 1e-12);
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    const auto j = nlohmann::json::parse(faithfulnessToJson(*r));
    for (const char* key : {"mass_in_box_per_step", "pointing_per_step", "uniform_mass", "expected_calibration_error"})
        EXPECT_TRUE(j[key].is_null()) << key;
    EXPECT_DOUBLE_EQ(j["rank_correlation"].get<double>(), 1.0);
}
