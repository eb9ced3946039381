// Attention at length above the engine: the benchmark's figures and refusals,
// the fidelity of each variant on real (bundled models') and synthetic attention, the length
// view and its exports, and the long-range task's plumbing (a few steps, never a real training).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "analysis/length/length_bench.h"
#include "analysis/length/length_fidelity.h"
#include "analysis/length/model_attention_inputs.h"
#include "analysis/length/length_view.h"
#include "attention/qkv_capture.h"
#include "render/length_render.h"
#include "train/length_task.h"

namespace saccade {
namespace {

const std::string kModels = std::string(SACCADE_SAMPLES_DIR) + "/models/";

LengthBenchOptions tinyBench() {
    LengthBenchOptions o;
    o.lengths = {64, 256};
    o.dim = 8;
    o.heads = 2;
    o.repeats = 1;
    o.variant.window = 8;
    o.variant.block = 16;
    o.variant.summary = 2;
    o.variant.topK = 8;
    o.variant.features = 32;
    o.variant.tile = 32;
    return o;
}

TEST(LengthBench, MeasuresEveryVariantWithErrorsAgainstExactAttention) {
    const auto o = tinyBench();
    const auto r = benchAttentionLengths(o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_GT(r->matmulGflops, 0);
    for (auto v : allAttentionVariants()) {
        ASSERT_EQ(r->points.at(v).size(), 2u) << attentionVariantName(v);
        for (const auto& p : r->points.at(v)) {
            EXPECT_GT(p.forwardMs, 0);
            ASSERT_TRUE(p.backwardMs && p.peakMb && p.maxAbsError);
            if (isExactVariant(v)) EXPECT_LT(*p.maxAbsError, 1e-5) << attentionVariantName(v);
            else EXPECT_GT(*p.maxAbsError, 1e-3) << attentionVariantName(v) << " at " << p.n;
        }
        EXPECT_TRUE(r->slopes.at(v).has_value());
    }
    // The exact variants agree with full attention's float32 output; the tiled one never holds
    // the 256 x 256 matrices of the two heads (0.5 MB each) that full attention does.
    const auto& eff = r->points.at(AttentionVariant::MemoryEfficient)[1];
    const auto& full = r->points.at(AttentionVariant::Full)[1];
    ASSERT_TRUE(eff.maxAbsDiffFull);
    EXPECT_LT(*eff.maxAbsDiffFull, 1e-5);
    EXPECT_GE(*full.peakMb, 0.5);
    EXPECT_LT(*eff.peakMb, *full.peakMb / 2);
    const auto json = nlohmann::json::parse(lengthBenchToJson(o, *r));
    for (const char* name : {"full", "memory_efficient", "local", "block_sparse", "top_k", "linear", "performer"}) {
        ASSERT_TRUE(json["variants"].contains(name)) << name;
        const auto& row = json["variants"][name][0];
        for (const char* key : {"n", "ms", "backward_ms", "peak_mb", "max_abs_error", "gflops", "flop_fraction"})
            EXPECT_TRUE(row.contains(key)) << name << " " << key;
    }
}

TEST(LengthBench, FiguresNotMeasuredAreNull) {
    auto o = tinyBench();
    o.lengths = {64};
    o.variants = {AttentionVariant::Local};
    o.backward = false;
    o.errors = false;
    const auto r = benchAttentionLengths(o);
    ASSERT_TRUE(r.ok());
    const auto json = nlohmann::json::parse(lengthBenchToJson(o, *r));
    const auto& row = json["variants"]["local"][0];
    EXPECT_TRUE(row["backward_ms"].is_null());
    EXPECT_TRUE(row["max_abs_error"].is_null());
    EXPECT_TRUE(json["slopes"]["local"].is_null());  // one length: no slope
}

TEST(LengthBench, RefusesBeforeAllocatingWhatCannotFit) {
    auto o = tinyBench();
    o.lengths = {16384};
    o.dim = 64;
    o.variants = {AttentionVariant::MemoryEfficient, AttentionVariant::Full};
    o.memoryBudget = std::int64_t(512) << 20;
    const auto problem = checkLengthBench(o);
    EXPECT_NE(problem.find("full at n = 16384 needs about"), std::string::npos) << problem;
    EXPECT_NE(problem.find("GB"), std::string::npos) << problem;
    o.variants = {AttentionVariant::MemoryEfficient};
    EXPECT_EQ(checkLengthBench(o), "");
    o.variants = {AttentionVariant::Local};
    o.variant.window = 20000;
    EXPECT_NE(checkLengthBench(o).find("window 20000 does not fit length 16384"), std::string::npos);
    EXPECT_FALSE(benchAttentionLengths(o).ok());
}

TEST(LengthBench, ExactVariantsListedBeforeFullAreStillComparedWithIt) {
    auto o = tinyBench();
    o.lengths = {64};
    o.variants = {AttentionVariant::MemoryEfficient, AttentionVariant::Full};
    o.backward = false;
    const auto r = benchAttentionLengths(o);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_TRUE(r->points.at(AttentionVariant::MemoryEfficient)[0].maxAbsDiffFull.has_value());
    const auto json = nlohmann::ordered_json::parse(lengthBenchToJson(o, *r));
    EXPECT_EQ(json["variants"].begin().key(), "memory_efficient");  // the order asked for
}

TEST(LengthBench, LengthsNoMachineHoldsAreRefusedWithoutOverflow) {
    auto o = tinyBench();
    o.batch = 16;
    o.heads = 256;
    o.dim = 1;
    o.lengths = {11863306};
    o.variants = {AttentionVariant::Full};
    EXPECT_NE(checkLengthBench(o).find("needs about"), std::string::npos);
    EXPECT_GT(variantWorkingBytes(AttentionVariant::Full, o.variant, 4096, 11863306, 11863306, 1, false), 1e18);
}

TEST(LengthBench, LogLogSlopeOfAPowerLaw) {
    EXPECT_NEAR(*logLogSlope({256, 1024, 4096}, {1, 16, 256}), 2.0, 1e-12);
    EXPECT_NEAR(*logLogSlope({10, 100}, {3, 30}), 1.0, 1e-12);
    EXPECT_FALSE(logLogSlope({10}, {3}).has_value());
}

TEST(QkvCaptureTest, RecordsOnlyWhileAliveAndNests) {
    const auto t = torch::zeros({1, 1, 2, 2});
    QkvCapture::record("nobody listens", t, t, t, {});
    QkvCapture outer;
    QkvCapture::record("outer", t, t, t, {});
    {
        QkvCapture inner;
        QkvCapture::record("inner", t, t, t, {});
        ASSERT_EQ(inner.layers().size(), 1u);
        EXPECT_EQ(inner.layers()[0].name, "inner");
    }
    QkvCapture::record("outer again", t, t, t, {});
    ASSERT_EQ(outer.layers().size(), 2u);
    EXPECT_EQ(outer.layers()[1].name, "outer again");
}

TEST(LengthFidelity, BudgetOptionsGiveEachPatternAboutTheSameKeys) {
    const auto o = budgetOptions(4096, 0.125, 64, 3);
    EXPECT_EQ(o.window, 256);
    EXPECT_EQ(o.topK, 512);
    EXPECT_EQ(o.block, 256);
    EXPECT_EQ(o.summary, 16);  // 16 blocks x 16 summary keys = 256, beside the own block's 256
    EXPECT_EQ(o.features, 64);
    const auto small = budgetOptions(23, 0.125, 64, 3);
    EXPECT_EQ(small.block, 5);  // sqrt(23): the sparsest the pattern gets
    EXPECT_EQ(small.summary, 1);
    EXPECT_EQ(small.window, 1);
}

TEST(LengthFidelity, ExactVariantsLoseNothingAndAWindowOfOneLosesMuch) {
    const auto s = positionalFidelitySource(256, 16, 2, 5);
    VariantOptions o;
    o.window = 1;
    o.tile = 64;
    const auto r = measureFidelityWith(s, {AttentionVariant::Full, AttentionVariant::MemoryEfficient, AttentionVariant::Local}, o);
    ASSERT_TRUE(r.ok()) << r.error();
    for (int i = 0; i < 2; ++i) {
        EXPECT_LT((*r)[i].maxTv, 1e-5);
        EXPECT_DOUBLE_EQ((*r)[i].top1Agreement, 1.0);
        EXPECT_EQ((*r)[i].rows, 2 * 256);
    }
    EXPECT_GT((*r)[2].meanTv, 0.2);
    EXPECT_NEAR((*r)[2].keysPerQuery, 3.0, 0.01);  // |i - j| <= 1, two rows at the ends see 2
    EXPECT_EQ((*r)[2].tvByQuery.size(), 256u);
    EXPECT_FALSE(measureFidelity(s, FidelityOptions{{AttentionVariant::Full}, 1.5}).ok());
    EXPECT_FALSE((*r)[0].hardSampleInTopK.has_value());  // only top_k is set beside hard attention
    // top_k against one hard-attention draw per row: with every key kept the draw is always among
    // them; with k = 1 it is only as often as the top key's mass.
    o.topK = 256;
    const auto all = measureFidelityWith(s, {AttentionVariant::TopK}, o);
    ASSERT_TRUE(all.ok());
    EXPECT_DOUBLE_EQ(*all->front().hardSampleInTopK, 1.0);
    EXPECT_NEAR(*all->front().topKMass, 1.0, 1e-6);
    o.topK = 1;
    const auto one = measureFidelityWith(s, {AttentionVariant::TopK}, o);
    ASSERT_TRUE(one.ok());
    EXPECT_LT(*one->front().topKMass, 0.9);
    EXPECT_NEAR(*one->front().hardSampleInTopK, *one->front().topKMass, 0.1);  // 512 draws
}

TEST(LengthFidelity, BundledTransformerAndVitGiveTheirLayersQueriesAndKeys) {
    const auto vit = modelFidelitySources(kModels + "vit-translated-fashion60.pt", 2);
    ASSERT_TRUE(vit.ok()) << vit.error();
    ASSERT_EQ(vit->size(), 4u);  // four layers
    EXPECT_EQ((*vit)[0].q.sizes(), (std::vector<std::int64_t>{2, 4, 37, 16}));  // 2 images, 4 heads, CLS + 36 patches
    const auto seq = modelFidelitySources(kModels + "seq-dates-transformer.pt", 8);
    ASSERT_TRUE(seq.ok()) << seq.error();
    ASSERT_EQ(seq->size(), 2u);
    EXPECT_EQ((*seq)[0].name, "seq-dates-transformer.pt encoder layer 1");
    EXPECT_TRUE((*seq)[0].keep.defined());  // padding of the shorter sentences
    const auto r = measureFidelity((*seq)[0], FidelityOptions{});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_LT(r->front().maxTv, 1e-5);  // full against itself
    const auto patch = modelFidelitySources(kModels + "patch-soft-fashion60.pt", 2);
    ASSERT_FALSE(patch.ok());
    EXPECT_NE(patch.error().find("no self-attention layers"), std::string::npos) << patch.error();
}

LengthViewOptions tinyView(AttentionVariant v) {
    LengthViewOptions o;
    o.variant = v;
    o.n = 96;
    o.dim = 16;
    o.options.window = 4;
    o.options.block = 16;
    o.options.summary = 2;
    o.options.topK = 4;
    o.curveLengths = {32, 96};
    o.repeats = 1;
    return o;
}

TEST(LengthViewTest, PatternRowMapAndCurvesOfOneVariant) {
    const auto view = computeLengthView(tinyView(AttentionVariant::Local));
    ASSERT_TRUE(view.ok()) << view.error();
    EXPECT_EQ(view->patternRows, 96);
    EXPECT_EQ(view->pattern.size(), 96u * 96u);
    EXPECT_NEAR(view->keysPerQuery, (96 * 9 - 2 * (4 + 3 + 2 + 1)) / 96.0, 1e-9);  // band of 9, clipped
    EXPECT_EQ(view->rowTv.size(), 96u);
    EXPECT_GT(view->meanTv, 0.0);
    ASSERT_EQ(view->curve.size(), 2u);
    ASSERT_EQ(view->fullCurve.size(), 2u);
    // Two lengths are too few for a slope that means something: none, and the view says why.
    EXPECT_FALSE(view->slope || view->fullSlope);
    EXPECT_EQ(view->slopeNote, "too few lengths (2) to fit");
    for (const auto& p : view->curve) EXPECT_TRUE(p.fastestMs <= p.ms && p.ms <= p.slowestMs) << p.n;
    const auto exact = computeLengthView(tinyView(AttentionVariant::MemoryEfficient));
    ASSERT_TRUE(exact.ok());
    EXPECT_LT(exact->maxTv, 1e-5);
    EXPECT_DOUBLE_EQ(exact->top1Agreement, 1.0);
}

// A slope is fitted where it means something: 3 lengths or more, from 1,024 when 3 reach it, and
// steady timings; else none, with the reason.
TEST(LengthViewTest, CurveSlopeOnlyWhereItMeansSomething) {
    auto point = [](std::int64_t n, double ms, double spread = 1.1) {
        return LengthCurvePoint{n, ms, ms / std::sqrt(spread), ms * std::sqrt(spread), std::nullopt};
    };
    std::string why;
    // Linear from 1,024 on; the small lengths (fixed overheads) are left out of the fit.
    const auto linear = curveSlope({point(256, 5), point(512, 5.1), point(1024, 2), point(2048, 4), point(4096, 8)}, &why);
    ASSERT_TRUE(linear) << why;
    EXPECT_NEAR(*linear, 1.0, 1e-12);
    EXPECT_TRUE(why.empty());
    const auto quadratic = curveSlope({point(256, 1), point(512, 4), point(1024, 16)}, &why);  // fewer than 3 from 1,024: all
    ASSERT_TRUE(quadratic);
    EXPECT_NEAR(*quadratic, 2.0, 1e-12);
    EXPECT_FALSE(curveSlope({point(1024, 2), point(2048, 4)}, &why));
    EXPECT_EQ(why, "too few lengths (2) to fit");
    EXPECT_FALSE(curveSlope({point(1024, 2), point(2048, 4, 2.0), point(4096, 8)}, &why));  // slowest 2x the fastest
    EXPECT_EQ(why, "timings at n = 2048 too unsteady to fit");
}

TEST(LengthViewTest, ExportsInEveryFormatAndRefusesOthers) {
    const auto view = computeLengthView(tinyView(AttentionVariant::TopK));
    ASSERT_TRUE(view.ok()) << view.error();
    EXPECT_EQ(lengthViewBytes(*view, "png", 900, 360).substr(1, 3), "PNG");
    const auto svg = lengthViewBytes(*view, "svg");
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("top_k, k = 4 at n = 96"), std::string::npos);
    // Each CSV is one table under one header (issue 52 item 8: they were joined).
    const auto curves = lengthViewBytes(*view, "csv");
    EXPECT_EQ(curves.rfind("variant,n,median_ms,fastest_ms,slowest_ms,repeats,peak_mb\ntop_k,32,", 0), 0u) << curves;
    EXPECT_EQ(std::count(curves.begin(), curves.end(), '\n'), 5);  // the header, two lengths of top_k and of full
    EXPECT_EQ(curves.find("\n\n"), std::string::npos);
    EXPECT_EQ(lengthRowsToCsv(*view).rfind("query,total_variation\n0,", 0), 0u);
    const auto json = nlohmann::json::parse(lengthViewBytes(*view, "json"));
    EXPECT_EQ(json["schema"], "saccade.length-view");
    EXPECT_EQ(json["row_tv"].size(), 96u);
    EXPECT_EQ(json["curves"]["full"].size(), 2u);
    EXPECT_TRUE(json["curves"]["full"][0].contains("fastest_ms") && json["curves"]["full"][0].contains("slowest_ms"));
    EXPECT_TRUE(json["slopes"]["full"].is_null());
    EXPECT_EQ(json["slope_notes"]["full"], "too few lengths (2) to fit");
    EXPECT_EQ(*lengthViewFormat("a/b.SVG"), "svg");
    EXPECT_FALSE(lengthViewFormat("figure.gif").ok());
    auto bad = tinyView(AttentionVariant::Local);
    bad.options.window = 500;
    EXPECT_NE(checkLengthView(bad).find("window 500"), std::string::npos);
    bad = tinyView(AttentionVariant::Full);  // the curve fits; n itself does not
    bad.n = 65536;
    bad.heads = 64;
    bad.dim = 2;
    bad.curveLengths = {16};
    EXPECT_NE(checkLengthView(bad).find("at n = 65536 needs about"), std::string::npos) << checkLengthView(bad);
    bad = tinyView(AttentionVariant::Local);
    bad.n = 8;
    EXPECT_NE(checkLengthView(bad).find("16 to 65,536"), std::string::npos);
}

LengthTaskOptions tinyTask() {
    LengthTaskOptions o;
    o.variant = AttentionVariant::BlockSparse;
    o.options.block = 8;
    o.options.summary = 2;
    o.trainLength = 32;
    o.batch = 4;
    o.dim = 8;
    o.heads = 2;
    o.ff = 16;
    o.seconds = 0;
    o.steps = 3;
    o.testLengths = {32, 48};
    o.testCount = 10;
    return o;
}

TEST(LengthTask, TrainsTheGivenStepsAndIsReproducible) {
    const auto a = runLengthTask(tinyTask());
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->steps, 3);
    ASSERT_EQ(a->test.size(), 2u);
    EXPECT_EQ(a->test[1].n, 48);
    for (const auto& p : a->test) EXPECT_TRUE(p.low <= p.accuracy && p.accuracy <= p.high);
    const auto b = runLengthTask(tinyTask());
    ASSERT_TRUE(b.ok());
    EXPECT_DOUBLE_EQ(a->finalLoss, b->finalLoss);
    EXPECT_DOUBLE_EQ(a->test[1].accuracy, b->test[1].accuracy);
    const auto json = nlohmann::json::parse(lengthTaskToJson(tinyTask(), {*a}));
    EXPECT_EQ(json["variants"]["block_sparse"]["steps"], 3);
    EXPECT_TRUE(json["seconds"].is_null());
}

TEST(LengthTask, RefusesWhatCannotRun) {
    auto o = tinyTask();
    o.steps = 0;
    EXPECT_NE(checkLengthTask(o).find("training time or a number of steps"), std::string::npos);
    o = tinyTask();
    o.heads = 3;
    EXPECT_NE(checkLengthTask(o).find("must divide into 3 heads"), std::string::npos);
    o = tinyTask();
    o.variant = AttentionVariant::Full;
    o.testLengths = {65536};
    o.heads = 8;
    o.dim = 64;
    EXPECT_NE(checkLengthTask(o).find("at n = 65536 (testing, batch 1) needs about"), std::string::npos) << checkLengthTask(o);
    o = tinyTask();
    o.options.summary = 9;
    EXPECT_NE(checkLengthTask(o).find("summary 9 must be 1 to the block length 8"), std::string::npos);
    o = tinyTask();
    o.variant = AttentionVariant::Performer;
    o.options.features = 0;
    EXPECT_NE(checkLengthTask(o).find("feature"), std::string::npos);
    EXPECT_FALSE(runLengthTask(o).ok());
}

}  // namespace
}  // namespace saccade
