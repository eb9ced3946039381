// Attribution over a sentence's source tokens (analysis/seq_attribution.h) on the bundled sequence
// models: the attention map is the model's own alignment, the gradients match finite differences
// of the logits, integrated gradients are complete, the table's attention AER is eval's, and the
// model-randomisation sanity check leaves the weights as they were.

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "analysis/attribution/seq_attribution.h"
#include "analysis/attribution/seq_map_comparison.h"
#include "analysis/attribution/seq_sanity_check.h"
#include "models/seq/seq_model.h"
#include "models/seq_gradient_forward.h"

namespace saccade {
namespace {

std::string seqModelPath(const std::string& name) { return std::string(SACCADE_SAMPLES_DIR) + "/models/" + name; }

std::unique_ptr<SeqModel> openSeq(const std::string& name) {
    auto m = SeqModel::open(seqModelPath(name), "cpu");
    EXPECT_TRUE(m.ok()) << (m ? "" : m.error());
    return m ? std::move(m).value() : nullptr;
}

const SeqSample& firstTest(const SeqModel& model) {
    static std::map<std::string, SeqSample> samples;
    auto& s = samples[model.path()];
    if (s.source.empty()) s = model.task()->sample(Split::Test, 0, kSeqTestSeed);
    return s;
}

// d logit_t / d row_s, by central differences over every dimension of one source row.
double finiteGradientNorm(SeqGradientForward& f, const SeqForcedInput& in, const std::string& rule, int t, int s) {
    torch::NoGradGuard noGrad;
    const double h = 1e-2;
    double sum = 0;
    const auto E = in.embedded.size(2), T = in.input.size(1);
    for (std::int64_t e = 0; e < E; ++e) {
        auto plus = in.embedded.to(torch::kDouble).clone(), minus = plus.clone();
        plus[0][s][e] += h;
        minus[0][s][e] -= h;
        const auto both = torch::cat({plus, minus}).to(torch::kFloat);
        const auto logits = f.forced(both, in.source.expand({2, in.source.size(1)}), in.input.expand({2, T}), rule).logits;
        const double d = (logits[0][t][in.targetIds[size_t(t)]].item<double>() - logits[1][t][in.targetIds[size_t(t)]].item<double>()) / (2 * h);
        sum += d * d;
    }
    return std::sqrt(sum);
}

TEST(SeqAttribution, AttentionMapIsTheModelsForcedAlignment) {
    for (const char* name : {"seq-dates-additive.pt", "seq-dates-transformer.pt"}) {
        auto model = openSeq(name);
        ASSERT_TRUE(model);
        const auto& s = firstTest(*model);
        SeqAttributionOptions o;
        o.method = "attention";
        auto a = attributeTranslation(*model, s.source, s.target, o);
        ASSERT_TRUE(a.ok()) << a.error();
        auto forced = model->forcedAlignment(s.source, s.target, "", 1);
        ASSERT_TRUE(forced.ok());
        ASSERT_EQ(a->rows.size(), s.target.size() + 1);  // and </s>
        EXPECT_EQ(a->target.back(), "</s>");
        for (std::size_t t = 0; t < s.target.size(); ++t)
            for (std::size_t k = 0; k < s.source.size(); ++k) EXPECT_NEAR(a->rows[t][k], (*forced)[t][k], 1e-4) << name;
    }
}

TEST(SeqAttribution, GradientMatchesFiniteDifferencesOfTheLogit) {
    for (const char* name : {"seq-dates-additive.pt", "seq-dates-transformer.pt"}) {
        auto model = openSeq(name);
        ASSERT_TRUE(model);
        auto* f = model->gradientForward();
        ASSERT_NE(f, nullptr);
        const auto& s = firstTest(*model);
        auto in = f->prepare(s.source, s.target);
        ASSERT_TRUE(in.ok());
        SeqAttributionOptions o;
        o.method = "gradient";
        auto a = attributeSentence(*f, s.source, s.target, o);
        ASSERT_TRUE(a.ok()) << a.error();
        for (int t : {0, 3}) {
            const int s0 = a->pointed[size_t(t)];
            ASSERT_GE(s0, 0);
            const double numeric = finiteGradientNorm(*f, *in, a->rule, t, s0);
            EXPECT_NEAR(a->signedRows[size_t(t)][size_t(s0)], numeric, 0.05 * numeric + 1e-3) << name << " step " << t;
        }
    }
}

TEST(SeqAttribution, IntegratedGradientsAreCompleteFromTheUnknownRows) {
    for (const char* name : {"seq-dates-additive.pt", "seq-dates-transformer.pt"}) {
        auto model = openSeq(name);
        ASSERT_TRUE(model);
        const auto& s = firstTest(*model);
        SeqAttributionOptions o;
        o.method = "integrated-gradients";
        auto a = attributeTranslation(*model, s.source, s.target, o);
        ASSERT_TRUE(a.ok()) << a.error();
        EXPECT_EQ(a->baseline, "unknown");
        ASSERT_TRUE(a->completenessError.has_value());
        EXPECT_LT(*a->completenessError, 0.01) << name;
        ASSERT_EQ(a->difference.size(), a->rows.size());
        for (std::size_t t = 0; t < a->difference.size(); ++t)
            EXPECT_NEAR(a->attributionSum[t], a->difference[t], 0.05 + 0.02 * std::abs(a->difference[t])) << name;
        EXPECT_EQ(a->forwards, std::int64_t(a->rows.size()) * 64 + 2 * std::int64_t(a->rows.size()));
    }
}

TEST(SeqAttribution, TableAttentionAerIsEvalsAer) {
    auto model = openSeq("seq-dates-additive.pt");
    ASSERT_TRUE(model);
    SeqEvalOptions e;
    e.limit = 20;
    e.permutation = false;
    auto eval = model->evaluate(e);
    ASSERT_TRUE(eval.ok());
    SeqMapComparisonOptions o;
    o.methods = {"attention", "occlusion"};
    o.limit = 20;
    o.sanitySentences = 0;
    auto r = compareSeqMaps(*model, o);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_EQ(r->maps.size(), 2u);
    ASSERT_TRUE(r->maps[0].aer.has_value());
    EXPECT_NEAR(*r->maps[0].aer, eval->aer, 1e-9);
    EXPECT_EQ(r->sentences, 20);
    EXPECT_EQ(r->sanitySentences, 0);
    EXPECT_FALSE(r->maps[0].sanity.has_value());
    // Removing the token the map points at costs the word far more than a random token.
    for (const auto& m : r->maps) EXPECT_GT(m.deletionFall, 3 * r->randomFall) << m.method;
}

TEST(SeqAttribution, RefusesWhatCannotBeAttributed) {
    auto model = openSeq("seq-dates-additive.pt");
    ASSERT_TRUE(model);
    const auto& s = firstTest(*model);
    SeqAttributionOptions o;
    o.method = "rollout";
    auto a = attributeTranslation(*model, s.source, s.target, o);
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().find("Transformer"), std::string::npos) << a.error();
    o.method = "gradcam";
    EXPECT_FALSE(attributeTranslation(*model, s.source, s.target, o).ok());
    o.method = "gradient";
    o.rule = "sample";
    a = attributeTranslation(*model, s.source, s.target, o);
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().find("cannot be differentiated"), std::string::npos) << a.error();
    o.rule.clear();
    o.method = "integrated-gradients";
    o.steps = 0;
    EXPECT_FALSE(attributeTranslation(*model, s.source, s.target, o).ok());
    o.steps = 8;
    EXPECT_FALSE(attributeTranslation(*model, {}, s.target, o).ok());
}

std::vector<torch::Tensor> copyOfEveryParameter(SeqGradientForward& f) {
    std::vector<torch::Tensor> copies;
    for (const auto& g : f.parameterGroups())
        for (const auto& t : g.tensors) copies.push_back(t.detach().clone());
    return copies;
}

void expectBitExact(SeqGradientForward& f, const std::vector<torch::Tensor>& before) {
    const auto after = copyOfEveryParameter(f);
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(torch::equal(after[i], before[i])) << "tensor " << i;
}

TEST(SeqAttribution, SanityCheckRestoresEveryWeightBitExactly) {
    auto model = openSeq("seq-dates-additive.pt");
    ASSERT_TRUE(model);
    auto* f = model->gradientForward();
    ASSERT_NE(f, nullptr);
    const auto groups = f->parameterGroups();
    ASSERT_GT(groups.size(), 2u);
    EXPECT_EQ(groups.back().name, "src_embed");  // the input's table last
    const auto before = copyOfEveryParameter(*f);
    const auto& s = firstTest(*model);
    SeqAttributionOptions o;
    o.method = "gradient";
    const auto trained = attributeSentence(*f, s.source, s.target, o);
    ASSERT_TRUE(trained.ok()) << trained.error();
    auto curves = seqSanityCheck(*f, {s}, {"gradient"}, o, /*seed=*/7);
    ASSERT_TRUE(curves.ok()) << curves.error();
    ASSERT_EQ(curves->size(), 1u);
    ASSERT_TRUE((*curves)[0].finalSpearman.has_value());
    EXPECT_LT(*(*curves)[0].finalSpearman, 0.99);  // the cascade did write the model's own tensors
    expectBitExact(*f, before);
    // Cancelled half-way, with layers still random: restored all the same.
    int calls = 0;
    curves = seqSanityCheck(*f, {s}, {"gradient"}, o, /*seed=*/7, kSanityThreshold, [&](double) { return ++calls < 2; });
    ASSERT_FALSE(curves.ok());
    expectBitExact(*f, before);
    const auto again = attributeSentence(*f, s.source, s.target, o);
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_EQ(again->rows, trained->rows);
}

TEST(SeqAttribution, TableSanityCurveHasOneStepPerGroup) {
    auto model = openSeq("seq-dates-additive.pt");
    ASSERT_TRUE(model);
    SeqMapComparisonOptions o;
    o.methods = {"attention", "gradient"};
    o.limit = 3;
    o.sanitySentences = 3;
    auto r = compareSeqMaps(*model, o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->sanitySentences, 3);
    const auto groups = model->gradientForward()->parameterGroups();
    for (const auto& m : r->maps) {
        ASSERT_TRUE(m.sanity.has_value()) << m.method;
        ASSERT_EQ(m.sanity->steps.size(), groups.size()) << m.method;
        for (std::size_t g = 0; g < groups.size(); ++g) EXPECT_EQ(m.sanity->steps[g].layer, groups[g].name);
        EXPECT_GT(m.sanity->images, 0) << m.method;
        ASSERT_TRUE(m.sanity->finalSpearman.has_value()) << m.method;
        EXPECT_TRUE(std::isfinite(*m.sanity->finalSpearman)) << m.method;
        EXPECT_GE(*m.sanity->finalSpearman, -1.0);
        EXPECT_LE(*m.sanity->finalSpearman, 1.0);
    }
    const auto json = seqMapComparisonToJson(*r);
    EXPECT_NE(json.find("\"final_spearman\""), std::string::npos);
    EXPECT_NE(json.find("\"sanity_sentences\": 3"), std::string::npos);
}

}  // namespace
}  // namespace saccade
