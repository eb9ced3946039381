// Imported TorchScript translators (docs/model-contract.md, "Translators"): a module with
// translate(source, max_len) and align(source, target) built in C++ (torch::jit::Module::define,
// so no Python is needed), its translation with every layer's and head's map, its evaluation on a
// pairs file with gold alignments, the same pairs evaluation on Saccade's own model against its
// test split, and each bad-input case with its one-line error.

#include <fstream>

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "data/seq_pairs.h"
#include "models/attention_model.h"
#include "models/translator.h"
#include "models/translator_eval.h"
#include "temp_dir.h"

namespace saccade {
namespace {

const std::vector<std::string> kSource = {"<pad>", "<unk>", "a", "b", "c"};
const std::vector<std::string> kTarget = {"<pad>", "<s>", "</s>", "A", "B", "C"};

struct TranslatorSpec {
    std::string body;
    std::string def = "def translate(self, source: Tensor, max_len: int) -> Dict[str, Tensor]:";
    std::optional<std::vector<std::string>> source = kSource, target = kTarget;
    std::string extra;
};

c10::List<std::string> listOf(const std::vector<std::string>& words) {
    c10::List<std::string> list;
    for (const auto& w : words) list.push_back(w);
    return list;
}

std::string saveTranslator(const test::TempDir& dir, const std::string& name, const TranslatorSpec& spec) {
    torch::jit::Module m("__torch__.Translator");
    if (spec.source) m.register_attribute("source_vocabulary", c10::ListType::ofStrings(), listOf(*spec.source));
    if (spec.target) m.register_attribute("target_vocabulary", c10::ListType::ofStrings(), listOf(*spec.target));
    m.register_attribute("end_token", c10::IntType::get(), std::int64_t(2));
    m.define(spec.def + "\n" + spec.body + spec.extra);
    const auto path = dir.file(name);
    m.save(path);
    return path;
}

// Upper-cases each letter (a -> A: id + 1) and ends; output step t attends to source t in both
// layers and heads, the last (</s>) to the last source token. The encoder attends to itself.
const std::string kTranslateBody = R"(
    S = source.size(1)
    tokens = torch.cat([source + 1, torch.tensor([[2]])], 1)
    rows = torch.cat([torch.arange(S), torch.tensor([S - 1])])
    cross = torch.eye(S).index_select(0, rows).view(1, 1, 1, S + 1, S).repeat(1, 2, 2, 1, 1)
    self_attn = torch.eye(S).view(1, 1, 1, S, S).repeat(1, 2, 2, 1, 1)
    return {"tokens": tokens, "cross_attentions": cross, "self_attentions": self_attn}
)";

// The decoder fed the target: target token t attends to source S - 1 - t (reversed), so an AER
// against a monotone gold alignment is not 0.
const std::string kAlign = R"(
def align(self, source: Tensor, target: Tensor) -> Dict[str, Tensor]:
    S = source.size(1)
    T = target.size(1)
    rows = torch.clamp(S - 1 - torch.arange(T), min=0)
    return {"alignment": torch.eye(S).index_select(0, rows).view(1, T, S)}
)";

std::string withTranslateLine(const std::string& body, const std::string& from, const std::string& to) {
    auto s = body;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

std::string openError(const std::string& path) {
    auto t = openTranslator(path, "cpu");
    return t ? std::string("opened") : t.error();
}

TEST(ScriptTranslator, TranslatesCharactersWithEveryLayerAndHead) {
    test::TempDir dir;
    const auto path = saveTranslator(dir, "tr.pt", {kTranslateBody});
    EXPECT_TRUE(fileReadsText(path));
    auto model = openTranslator(path, "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    const auto& m = **model;
    EXPECT_EQ(m.tokenKind(), SeqTokenKind::Characters);
    EXPECT_EQ(m.rules(), std::vector<std::string>{"translate"});
    EXPECT_EQ(m.task(), nullptr);
    EXPECT_EQ(m.describe(), "TorchScript, 2 layers x 2 heads");
    auto t = m.translate("cab", "", 1);
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->source, (std::vector<std::string>{"c", "a", "b"}));
    EXPECT_EQ(t->tokens, (std::vector<std::string>{"C", "A", "B", "</s>"}));
    EXPECT_TRUE(t->finished);
    EXPECT_EQ(t->output, "CAB");
    EXPECT_FALSE(t->hasReference);
    ASSERT_EQ(t->alignment.size(), 4u);
    for (std::size_t s = 0; s < 4; ++s) EXPECT_DOUBLE_EQ(t->alignment[s][std::min<std::size_t>(s, 2)], 1.0);
    EXPECT_NEAR(t->entropy[0], 0.0, 1e-12);
    // 2 layers x (mean + 2 heads) of cross and of encoder, the rollout and the cross through it.
    ASSERT_EQ(t->maps.size(), 14u);
    EXPECT_EQ(t->maps[0].name, "cross layer 1 mean");
    EXPECT_EQ(t->maps[12].name, "encoder rollout");
    EXPECT_DOUBLE_EQ(t->maps[12].weights[1][1], 1.0);  // identity attention rolls out to the identity
    auto bad = m.translate("cab", "soft", 1);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("one rule, translate"), std::string::npos) << bad.error();
}

TEST(ScriptTranslator, UnknownTokensReadAsUnkAndWordsSplitOnWhitespace) {
    test::TempDir dir;
    auto model = openTranslator(saveTranslator(dir, "tr.pt", {kTranslateBody}), "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    auto t = (*model)->translate("azb", "", 1);
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->unknown, std::vector<std::string>{"z"});
    // The model saw <unk> (id 1) and wrote 1 + 1 = 2, its end token: the translation stops there.
    EXPECT_EQ(t->tokens, (std::vector<std::string>{"A", "</s>"}));
    TranslatorSpec words{kTranslateBody};
    words.source = std::vector<std::string>{"<pad>", "<unk>", "one", "two"};
    words.target = std::vector<std::string>{"<pad>", "<s>", "</s>", "eins", "zwei"};
    auto w = openTranslator(saveTranslator(dir, "words.pt", words), "cpu");
    ASSERT_TRUE(w.ok()) << w.error();
    EXPECT_EQ((*w)->tokenKind(), SeqTokenKind::Words);
    auto tw = (*w)->translate("two  one", "", 1);
    ASSERT_TRUE(tw.ok()) << tw.error();
    EXPECT_EQ(tw->output, "zwei eins");
}

TEST(ScriptTranslator, EvaluatesPairsWithTheForcedAlignment) {
    test::TempDir dir;
    TranslatorSpec spec{kTranslateBody};
    spec.extra = kAlign;
    auto model = openTranslator(saveTranslator(dir, "tr.pt", spec), "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    ASSERT_TRUE((*model)->canForceTarget());
    // Line 2 is right; line 3 is wrong in its second token. Gold: monotone, sure links.
    auto pairs = parseSeqPairs("# a comment\nab\tAB\t0-0 1-1\nabc\tACC\t0-0 1-1 2-2\n", "p.tsv");
    ASSERT_TRUE(pairs.ok()) << pairs.error();
    auto r = evaluatePairs(**model, *pairs, "p.tsv", {});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->n, 2);
    EXPECT_DOUBLE_EQ(r->exactMatch, 0.5);
    EXPECT_DOUBLE_EQ(r->tokenAccuracy, 4.0 / 5.0);
    // align reverses: "ab" points 1,0 (0 of 2 sure hit); "abc" points 2,1,0 (1 of 3). AER = 1 - 2*1/(5+5).
    EXPECT_TRUE(r->aerMeasured);
    EXPECT_EQ(r->aerSentences, 2);
    EXPECT_NEAR(r->aer, 0.8, 1e-12);
    auto outside = parseSeqPairs("ab\tAB\t0-0 2-1\n", "q.tsv");
    ASSERT_TRUE(outside.ok());
    auto refused = evaluatePairs(**model, *outside, "q.tsv", {});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), "q.tsv:1: the link 2-1 lies outside the 2 source and 2 target tokens");
}

TEST(ScriptTranslator, WithoutAlignTheAerCountsItsOwnCorrectOutputs) {
    test::TempDir dir;
    auto model = openTranslator(saveTranslator(dir, "tr.pt", {kTranslateBody}), "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    auto pairs = parseSeqPairs("ab\tAB\t0-0 1-1\nabc\tACC\t0-0 1-1 2-2\nb\tB\n", "p.tsv");
    ASSERT_TRUE(pairs.ok()) << pairs.error();
    auto r = evaluatePairs(**model, *pairs, "p.tsv", {});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->aerSentences, 1);  // only "ab" is right and aligned
    EXPECT_DOUBLE_EQ(r->aer, 0.0);
    auto none = evaluatePairs(**model, std::vector<SeqPairLine>(pairs->begin() + 2, pairs->end()), "n.tsv", {});
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->aerMeasured);
    EXPECT_NE(seqEvalReportToJson(*none).find("\"aer\": null"), std::string::npos);
}

TEST(ScriptTranslator, BadModelsAreOneLineEach) {
    test::TempDir dir;
    EXPECT_EQ(openError(saveTranslator(dir, "sig.pt", {"    return {'tokens': x}\n", "def translate(self, x: Tensor) -> Dict[str, Tensor]:"})),
              "model '" + dir.file("sig.pt") + "': its translate method must be translate(source: Tensor, max_len: int) -> "
              "Dict[str, Tensor], not translate(x: Tensor) -> Dict[str, Tensor]");
    TranslatorSpec noTarget{kTranslateBody};
    noTarget.target.reset();
    EXPECT_NE(openError(saveTranslator(dir, "novocab.pt", noTarget)).find("it has no attribute target_vocabulary: List[str]"),
              std::string::npos);
    const auto outOfRange = openError(saveTranslator(dir, "range.pt", {withTranslateLine(kTranslateBody, "source + 1", "source + 9")}));
    EXPECT_NE(outOfRange.find("'tokens' hold id 11, outside the target vocabulary of 6 tokens"), std::string::npos) << outOfRange;
    const auto sums = openError(saveTranslator(dir, "sum.pt", {withTranslateLine(kTranslateBody, "repeat(1, 2, 2, 1, 1)\n    self", "repeat(1, 2, 2, 1, 1) * 0.5\n    self")}));
    EXPECT_NE(sums.find("'cross_attentions': a row sums to 0.5, not 1"), std::string::npos) << sums;
    const auto none = openError(saveTranslator(dir, "none.pt", {"    return {'tokens': source + 1}\n"}));
    EXPECT_NE(none.find("returned neither 'alignment' [N, T, S] nor 'cross_attentions'"), std::string::npos) << none;
    const auto floats = openError(saveTranslator(dir, "float.pt", {withTranslateLine(kTranslateBody, "return {\"tokens\": tokens", "return {\"tokens\": tokens.float()")}));
    EXPECT_NE(floats.find("'tokens' must be int64, not Float"), std::string::npos) << floats;
}

TEST(ScriptTranslator, ImageAndTextModelsAreToldApart) {
    test::TempDir dir;
    const auto path = saveTranslator(dir, "tr.pt", {kTranslateBody});
    auto image = loadAttentionModel(path, "cpu");
    ASSERT_FALSE(image.ok());
    EXPECT_NE(image.error().find("is a translator (it has a translate method), which reads text"), std::string::npos) << image.error();
    const auto patch = std::string(SACCADE_SAMPLES_DIR) + "/models/patch-soft-fashion60.pt";
    EXPECT_FALSE(fileReadsText(patch));
    EXPECT_NE(openError(patch).find("holds a patch classifier, which reads images"), std::string::npos);
    EXPECT_FALSE(fileReadsText(std::string(SACCADE_SAMPLES_DIR) + "/torchscript/sat_captioner.pt"));
    EXPECT_TRUE(fileReadsText(std::string(SACCADE_SAMPLES_DIR) + "/torchscript/seq_translator.pt"));
    // A classifier whose submodule has a method called translate is not a translator.
    torch::jit::Module inner("__torch__.Shifter");
    inner.define("def translate(self, x: Tensor) -> Tensor:\n    return x + 1\n");
    torch::jit::Module outer("__torch__.Classifier");
    outer.register_module("shifter", inner);
    outer.define("def forward(self, x: Tensor) -> Tensor:\n    return self.shifter.translate(x)\n");
    outer.save(dir.file("classifier.pt"));
    EXPECT_FALSE(fileReadsText(dir.file("classifier.pt")));
}

TEST(SeqPairs, ParsedStrictly) {
    EXPECT_EQ(parseSeqPairs("ab\n", "p.tsv").error(), "p.tsv:1: a line is SOURCE<TAB>TARGET[<TAB>ALIGNMENT], not 1 tab-separated field");
    EXPECT_EQ(parseSeqPairs("a\tb\tc\td\n", "p.tsv").error(),
              "p.tsv:1: a line is SOURCE<TAB>TARGET[<TAB>ALIGNMENT], not 4 tab-separated fields");
    EXPECT_EQ(parseSeqPairs("\n# only\n", "p.tsv").error(), "p.tsv holds no pairs (one SOURCE<TAB>TARGET per line)");
    EXPECT_EQ(parseSeqPairs("a\tb\t0-x\n", "p.tsv").error(),
              "p.tsv:1: the alignment link '0-x' is not S-T (sure) or S?T (possible), positions from 0");
    EXPECT_EQ(parseSeqPairs("a\t \n", "p.tsv").error(), "p.tsv:1: the target is empty");
    auto ok = parseSeqPairs("a b\tc\t0-0 1?0\r\n", "p.tsv");
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_EQ((*ok)[0].sure, (std::vector<std::pair<int, int>>{{0, 0}}));
    EXPECT_EQ((*ok)[0].possible, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}));
}

TEST(SeqPairs, SaccadesOwnModelScoresTheSameOnItsExportedTestPairs) {
    auto model = openTranslator(std::string(SACCADE_SAMPLES_DIR) + "/models/seq-dates-additive.pt", "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    SeqEvalOptions o;
    o.limit = 100;
    o.permutation = false;
    auto split = (*model)->evaluate(o);
    ASSERT_TRUE(split.ok()) << split.error();
    auto pairs = parseSeqPairs(seqPairsText(*(*model)->task(), Split::Test, 0, 100, kSeqTestSeed), "dates-test.tsv");
    ASSERT_TRUE(pairs.ok()) << pairs.error();
    auto onPairs = evaluatePairs(**model, *pairs, "dates-test.tsv", o);
    ASSERT_TRUE(onPairs.ok()) << onPairs.error();
    EXPECT_DOUBLE_EQ(onPairs->exactMatch, split->exactMatch);
    EXPECT_DOUBLE_EQ(onPairs->tokenAccuracy, split->tokenAccuracy);
    EXPECT_NEAR(onPairs->aer, split->aer, 1e-12);
    EXPECT_GT(split->aer, 0.0);
    EXPECT_EQ(onPairs->aerSentences, 100);
}

}  // namespace
}  // namespace saccade
