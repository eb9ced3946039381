// Rules as types: one registry of their spellings (trace/rule_kind.h), and every rule a model
// offers, evaluates under or opens with is one of them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/attention_model.h"
#include "test_device.h"
#include "trace/rule_kind.h"

using namespace saccade;

namespace {
const std::vector<RuleKind> kEveryRuleKind = {
    RuleKind::Soft,   RuleKind::Sample,    RuleKind::Argmax, RuleKind::TopK,    RuleKind::KSample, RuleKind::Gumbel,
    RuleKind::Mean,   RuleKind::Random,    RuleKind::Attention, RuleKind::Head, RuleKind::Rollout, RuleKind::Beam,
    RuleKind::Forward, RuleKind::Caption, RuleKind::Translate, RuleKind::Encode};
}  // namespace

TEST(RuleKind, EveryNameReadsBackAndEachParameterIsWhereItBelongs) {
    for (RuleKind k : kEveryRuleKind) {
        const std::string name = ruleName(k);
        EXPECT_EQ(ruleKindOf(name), k) << name;
        // A parameter is part of a rule's spelling only where the rule takes one.
        EXPECT_EQ(ruleKindOf(name + ":3").has_value(), traitsOf(k).parameter != RuleParameter::None) << name;
    }
    EXPECT_EQ(ruleKindOf("ksample:10"), RuleKind::KSample);
    EXPECT_EQ(ruleKindOf("gumbel:0.5"), RuleKind::Gumbel);
    EXPECT_EQ(ruleKindOf("head:2"), RuleKind::Head);
    EXPECT_EQ(ruleKindOf("beam"), RuleKind::Beam);
    EXPECT_TRUE(isRule("beam:3", RuleKind::Beam));
    EXPECT_FALSE(isRule("beam:3", RuleKind::Soft));
    EXPECT_FALSE(isRule("soft:3", RuleKind::Soft));
    for (const char* notARule : {"", "beamfoo", "Soft", "ksample10", ":3", "soft "})
        EXPECT_FALSE(ruleKindOf(notARule).has_value()) << notARule;
}

TEST(RuleKind, TraitsSayWhichRulesDrawAndWhichReadSeveralPlaces) {
    std::vector<std::string> stochastic, several, counted, tempered;
    for (RuleKind k : kEveryRuleKind) {
        const auto& t = traitsOf(k);
        if (t.stochastic) stochastic.push_back(t.name);
        if (t.severalPerStep) several.push_back(t.name);
        if (t.parameter == RuleParameter::Count) counted.push_back(t.name);
        if (t.parameter == RuleParameter::Temperature) tempered.push_back(t.name);
    }
    EXPECT_EQ(stochastic, (std::vector<std::string>{"sample", "ksample", "gumbel", "random"}));
    EXPECT_EQ(several, (std::vector<std::string>{"topk", "ksample"}));
    EXPECT_EQ(counted, (std::vector<std::string>{"topk", "ksample", "head", "beam"}));
    EXPECT_EQ(tempered, (std::vector<std::string>{"gumbel"}));
}

// The registry is complete: every rule a bundled or imported model offers (the GUI's menu), is
// evaluated under, or opens with, is a registered kind.
TEST(RuleKind, EveryRuleOfEveryImageModelIsRegistered) {
    const std::vector<std::string> files = {
        SACCADE_SAMPLES_DIR "/models/patch-soft-fashion60.pt",    SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt",
        SACCADE_SAMPLES_DIR "/models/ram-fashion28.pt",           SACCADE_SAMPLES_DIR "/models/caption-soft-scenes64.pt",
        SACCADE_SAMPLES_DIR "/models/vit-translated-fashion60.pt",
        SACCADE_SAMPLES_DIR "/models/vit-spt-translated-fashion60.pt", SACCADE_SAMPLES_DIR "/torchscript/grid_attention.pt",
        SACCADE_SAMPLES_DIR "/torchscript/glimpse_model.pt",     SACCADE_SAMPLES_DIR "/torchscript/sat_captioner.pt",
        SACCADE_SAMPLES_DIR "/torchscript/vit_model.pt"};
    int rules = 0;
    for (const auto& file : files) {
        auto model = loadAttentionModel(file, test::testDevice());
        ASSERT_TRUE(model) << file << ": " << model.error();
        std::vector<std::string> named = (*model)->ruleMenu().rules;
        for (const auto& r : (*model)->evaluationRules()) named.push_back(r);
        named.push_back((*model)->deterministicRule());
        named.push_back((*model)->trainingRule());
        named.push_back((*model)->unsampledRule());
        for (const auto& r : named) {
            EXPECT_TRUE(ruleKindOf(r).has_value()) << file << " names rule '" << r << "'";
            ++rules;
        }
    }
    EXPECT_GT(rules, 40);
}
