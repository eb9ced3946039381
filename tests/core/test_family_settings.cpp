// Typed contracts: output kinds and training modes from one registry, and family settings whose
// fields and readers cannot disagree on a key.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "models/model_family.h"
#include "trace/output_kind.h"

using namespace saccade;

TEST(OutputKind, NamesReadBackAndUnknownNamesAreRefused) {
    for (OutputKind k : {OutputKind::Class, OutputKind::Caption}) {
        auto parsed = parseOutputKind(outputKindName(k));
        ASSERT_TRUE(parsed) << outputKindName(k);
        EXPECT_EQ(*parsed, k);
    }
    EXPECT_EQ(outputKindName(OutputKind::Caption), "caption");
    auto bad = parseOutputKind("captions");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error(), "'captions' is not an output kind (class, caption)");
}

TEST(OutputKind, TraitsSayWhatDiffersBetweenClassesAndCaptions) {
    const auto& c = traitsOf(OutputKind::Class);
    EXPECT_TRUE(c.labelsAreClasses);
    EXPECT_FALSE(c.wordSteps);
    EXPECT_FALSE(c.referenceScored);
    const auto& w = traitsOf(OutputKind::Caption);
    EXPECT_FALSE(w.labelsAreClasses);
    EXPECT_TRUE(w.wordSteps);
    EXPECT_TRUE(w.referenceScored);
    EXPECT_STREQ(w.plural, "captions");
}

TEST(TrainingMode, NamesTrainingRulesAndImportsAreTyped) {
    for (TrainingMode m : {TrainingMode::Soft, TrainingMode::Hard, TrainingMode::Gumbel, TrainingMode::Reinforce,
                           TrainingMode::Imported}) {
        auto parsed = parseTrainingMode(trainingModeName(m));
        ASSERT_TRUE(parsed) << trainingModeName(m);
        EXPECT_EQ(*parsed, m);
    }
    EXPECT_FALSE(traitsOf(TrainingMode::Imported).recorded);
    EXPECT_TRUE(traitsOf(TrainingMode::Hard).reinforced);
    EXPECT_FALSE(traitsOf(TrainingMode::Gumbel).reinforced);
    // A family's mode field takes soft, hard or gumbel only.
    EXPECT_EQ(attentionTrainingModeNames(), (std::vector<std::string>{"soft", "hard", "gumbel"}));
    auto reinforce = parseAttentionTrainingMode("reinforce");
    ASSERT_FALSE(reinforce);
    EXPECT_EQ(reinforce.error(), "unknown training mode 'reinforce' (use soft, hard or gumbel)");
    EXPECT_FALSE(parseTrainingMode("Soft"));  // names are exact
}

namespace {

/// Every key a family declares as a field.
std::set<std::string> declaredKeys(const ModelFamily& f) {
    std::set<std::string> keys;
    for (const auto& field : f.fields) keys.insert(field.key);
    return keys;
}

/// The family's settings with every field at its default and `key` set to `value`.
FamilyTrainRequest requestWith(const ModelFamily& f, const std::string& key = {}, const std::string& value = {}) {
    FamilySettings given;
    if (!key.empty()) given[key] = value;
    auto settings = checkSettings(f, given);
    if (!settings) throw std::runtime_error(settings.error());
    FamilyTrainRequest r;
    r.dataset = f.defaultDataset;
    r.settings = *settings;
    return r;
}

}  // namespace

TEST(FamilySettings, EveryTrainableFamilyReadsEachOfItsFieldsAndNoOther) {
    int trainable = 0;
    for (const ModelFamily* f : modelFamilies()) {
        if (!f->train) continue;
        ++trainable;
        ASSERT_TRUE(f->readSettings) << f->name << " trains but cannot say what it reads";
        const auto r = requestWith(*f);
        SettingsReader reader(r.settings);
        ASSERT_NO_THROW(f->readSettings(r, reader)) << f->name;
        EXPECT_EQ(reader.read(), declaredKeys(*f)) << f->name << ": a field no trainer reads, or a key read but not declared";
        // Its conditions, console lines and dataset fitting read declared keys only (else they throw).
        TrainProgress p;
        if (f->reinforced) EXPECT_NO_THROW((void)f->reinforced(r.settings)) << f->name;
        if (f->progressLine) EXPECT_NO_THROW((void)f->progressLine(p, r.settings)) << f->name;
        if (f->evaluationLine) EXPECT_NO_THROW((void)f->evaluationLine(p, r.settings)) << f->name;
        if (f->fitToDataset) {
            auto s = r.settings;
            EXPECT_NO_THROW(f->fitToDataset(s, f->defaultDataset)) << f->name;
        }
        // Every choice of every field reads (a mode field's choices are typed modes).
        for (const auto& field : f->fields)
            for (const auto& choice : field.choices) {
                const auto chosen = requestWith(*f, field.key, choice);
                SettingsReader s(chosen.settings);
                EXPECT_NO_THROW(f->readSettings(chosen, s)) << f->name << " --" << field.key << ' ' << choice;
            }
    }
    EXPECT_EQ(trainable, 5);  // patch, RAM, ViT, captioner, sequence models
}

TEST(FamilySettings, AKeyThatIsNotAFieldIsAProgrammingErrorNotAZero) {
    const ModelFamily* patch = findFamily("patch");
    ASSERT_NE(patch, nullptr);
    const auto r = requestWith(*patch);
    SettingsReader reader(r.settings);
    EXPECT_EQ(reader.integer("steps"), std::stoll(r.settings.at("steps")));
    try {
        (void)reader.integer("stpes");
        FAIL() << "a misspelt key read as a number";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(), "no family setting 'stpes': it is not one of the family's fields");
    }
    EXPECT_THROW((void)textSetting(r.settings, "mdoe"), std::logic_error);
    EXPECT_EQ(attentionModeSetting(r.settings, "mode"), TrainingMode::Soft);
}

TEST(FamilyRegistry, AFamilyRegistersOnceAndOnlyWithWhatEveryFamilyNeeds) {
    const ModelFamily* patch = findFamily("patch");
    ASSERT_NE(patch, nullptr);
    auto again = registerFamily(*patch);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error(), "a model family named 'patch' is already registered");
    EXPECT_EQ(findFamily("patch"), patch);

    ModelFamily nameless = *patch;
    nameless.name.clear();
    EXPECT_FALSE(registerFamily(nameless));
    ModelFamily closed = *patch;
    closed.name = "closed";
    closed.open = nullptr;
    auto refused = registerFamily(closed);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error(), "the model family 'closed' has no way to open its files (open, openText or openWithInput)");
    ModelFamily unread = *patch;
    unread.name = "unread";
    unread.readSettings = nullptr;
    EXPECT_FALSE(registerFamily(unread));
    EXPECT_EQ(findFamily("closed"), nullptr);
    EXPECT_EQ(findFamily("unread"), nullptr);
}
