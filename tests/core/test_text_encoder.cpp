// Text encoders (models/text_encoder.h): WordPiece as BERT's tokenizer cuts text, the bundled
// sample samples/torchscript/text_encoder.pt opened as PyTorch reads it, and the similarity of two
// sentences attributed to their pieces (analysis/attribution/text_similarity.h).
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/attribution/seq_attribution.h"
#include "analysis/attribution/text_similarity.h"
#include "data/wordpiece.h"
#include "models/text_encoder.h"
#include "models/translator.h"

using namespace saccade;

namespace {

const std::string kSample = std::string(SACCADE_SAMPLES_DIR) + "/torchscript/text_encoder.pt";
const std::string kTranslator = std::string(SACCADE_SAMPLES_DIR) + "/torchscript/seq_translator.pt";

std::shared_ptr<const Translator> sample() {
    auto m = openTranslator(kSample, "cpu");
    EXPECT_TRUE(m) << (m ? "" : m.error());
    return m ? *m : nullptr;
}

}  // namespace

// Every case of tests/data/text_encoder/wordpiece_cases.json, written by transformers' own
// BertTokenizer over the sample's vocabulary: the same pieces (or the Rust tokenizer's, where the
// two disagree on unassigned code points).
TEST(WordPiece, CutsEveryCaseAsBertsTokenizerDoes) {
    std::ifstream in(std::string(SACCADE_SAMPLES_DIR) + "/../tests/data/text_encoder/wordpiece_cases.json");
    ASSERT_TRUE(in);
    const auto cases = nlohmann::json::parse(in);
    std::map<std::string, long> vocabulary;
    for (const auto& piece : cases["vocabulary"]) vocabulary.emplace(piece.get<std::string>(), long(vocabulary.size()));
    ASSERT_EQ(vocabulary.size(), 53u);
    WordPieceRules rules;
    rules.lowerCase = cases["lower_case"].get<bool>();
    int checked = 0;
    for (const auto& c : cases["cases"]) {
        const auto got = wordPieces(c["text"].get<std::string>(), vocabulary, rules).pieces;
        const auto want = c["pieces"].get<std::vector<std::string>>();
        if (got != want && c.contains("fast_pieces")) EXPECT_EQ(got, c["fast_pieces"].get<std::vector<std::string>>()) << c["about"];
        else EXPECT_EQ(got, want) << c["about"] << ": " << c["text"];
        ++checked;
    }
    EXPECT_EQ(checked, 37);
}

TEST(WordPiece, ListsTheWordsReadAsUnknown) {
    const std::map<std::string, long> vocabulary{{"[UNK]", 0}, {"cat", 1}, {"##s", 2}};
    const auto cut = wordPieces("Cats zebra cat zebra", vocabulary, {});
    EXPECT_EQ(cut.pieces, (std::vector<std::string>{"cat", "##s", "[UNK]", "cat", "[UNK]"}));
    EXPECT_EQ(cut.unknownWords, std::vector<std::string>{"zebra"});
}

// The sample's maps and embedding are the numbers PyTorch gives on the same file
// (/usr/bin/python3: m.encode(ids) on [CLS] the cat ##s sat [SEP]).
TEST(TextEncoder, OpensTheSampleAsPyTorchReadsIt) {
    const auto m = sample();
    ASSERT_TRUE(m);
    const TextEncoder* encoder = m->asTextEncoder();
    ASSERT_NE(encoder, nullptr);
    EXPECT_EQ(encoder->embeddingSize(), 32);
    EXPECT_EQ(m->describe(), "TorchScript text encoder, 2 layers x 4 heads, 32-d embedding");
    EXPECT_TRUE(fileReadsText(kSample));
    auto t = m->translate("The cats sat");
    ASSERT_TRUE(t) << t.error();
    EXPECT_EQ(t->source, (std::vector<std::string>{"[CLS]", "the", "cat", "##s", "sat", "[SEP]"}));
    EXPECT_EQ(t->tokens, t->source);
    EXPECT_TRUE(t->output.empty());
    ASSERT_EQ(t->embedding.size(), 32u);
    EXPECT_NEAR(t->embedding[0], 0.05969523265957832, 1e-6);
    EXPECT_NEAR(t->embedding[31], 0.04595606029033661, 1e-6);
    EXPECT_NEAR(std::sqrt(std::inner_product(t->embedding.begin(), t->embedding.end(), t->embedding.begin(), 0.0)), 1.0, 1e-6);
    ASSERT_EQ(t->maps.size(), 11u);  // 2 layers x (a mean and 4 heads), and the rollout
    std::map<std::string, const SeqAttentionMap*> byName;
    for (const auto& map : t->maps) {
        byName[map.name] = &map;
        EXPECT_EQ(map.kind, "encoder");
        for (const auto& row : map.weights) EXPECT_NEAR(std::accumulate(row.begin(), row.end(), 0.0), 1.0, 1e-6) << map.name;
    }
    ASSERT_TRUE(byName.count("encoder layer 2 head 3") && byName.count("encoder layer 1 head 4") && byName.count("encoder rollout"));
    EXPECT_NEAR(byName["encoder layer 2 head 3"]->weights[0][1], 0.09359744936227798, 1e-6);
    EXPECT_NEAR(byName["encoder layer 1 head 4"]->weights[5][4], 0.1778136044740677, 1e-6);
    EXPECT_EQ(t->alignment, byName["encoder layer 2 mean"]->weights);  // the page's first map: the last layer's mean
}

TEST(TextEncoder, SaysWhatItCannotDoInOneLine) {
    const auto m = sample();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->translate("a cat", "argmax").error(), "a text encoder has one rule, encode (its own forward), not 'argmax'");
    EXPECT_EQ(m->translate("  ").error(), "nothing to encode: the text holds no pieces");
    std::string longText;
    for (int i = 0; i < 199; ++i) longText += "cat ";
    EXPECT_EQ(m->translate(longText).error(), "the text holds 201 pieces; at most 64 are read (the model's max_pieces)");
    const auto eval = m->evaluate({});
    ASSERT_FALSE(eval);
    EXPECT_NE(eval.error().find("is a text encoder: it writes no text, so there is no output to score"), std::string::npos);
    const auto attribution = attributeTranslation(*m, {"cat"}, {"cat"}, {});
    ASSERT_FALSE(attribution);
    EXPECT_NE(attribution.error().find("it has no output tokens to attribute to the text"), std::string::npos);
    auto translator = openTranslator(kTranslator, "cpu");
    ASSERT_TRUE(translator) << translator.error();
    EXPECT_EQ((*translator)->asTextEncoder(), nullptr);
    const auto refused = attributeSimilarity(**translator, "12 May", "13 May", {});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("writes text: similarity compares the sentence embeddings of a text encoder"), std::string::npos);
}

// Integrated gradients at 64 Gauss-Legendre points: each sentence's pieces sum to f(x) - f(x')
// within 0.1%, the start and end pieces (kept in the baseline) get exactly 0, the cosine is the
// two embeddings' dot product (both have norm 1), and the same call gives the same numbers. The
// values are PyTorch's on the same file (/usr/bin/python3: the same path, numpy's leggauss(64)
// mapped to [0, 1], autograd through encode_embedded), from the padding piece and from zero rows.
TEST(TextSimilarity, AttributesTheCosineToThePiecesCompletely) {
    const auto m = sample();
    ASSERT_TRUE(m);
    const std::string a = "The cats sat on the mat.", b = "A dog walked in the park!";
    auto s = attributeSimilarity(*m, a, b, {});
    ASSERT_TRUE(s) << s.error();
    const auto ea = m->translate(a)->embedding, eb = m->translate(b)->embedding;
    EXPECT_NEAR(s->cosine, std::inner_product(ea.begin(), ea.end(), eb.begin(), 0.0), 1e-6);
    EXPECT_EQ(s->forwards, 2 + 2 * (64 + 2));
    for (const auto& side : s->sentences) {
        ASSERT_EQ(side.values.size(), side.pieces.size());
        EXPECT_EQ(side.values.front(), 0.0);
        EXPECT_EQ(side.values.back(), 0.0);
        ASSERT_TRUE(side.completenessError);
        EXPECT_LT(*side.completenessError, 1e-3) << side.text;
        EXPECT_GT(std::abs(side.difference), 1e-3);
    }
    EXPECT_EQ(s->sentences[1].pieces, (std::vector<std::string>{"[CLS]", "a", "dog", "walk", "##ed", "in", "the", "park", "!", "[SEP]"}));
    EXPECT_NEAR(s->cosine, 0.8117199486976496, 1e-6);
    EXPECT_NEAR(s->sentences[0].values[2], -0.011935033824433016, 2e-6);  // "cat", from the padding piece
    EXPECT_NEAR(s->sentences[0].values[6], 0.027850899756272703, 2e-6);   // the second "the"
    SimilarityOptions zero;
    zero.baseline = "zero";
    auto fromZero = attributeSimilarity(*m, a, b, zero);
    ASSERT_TRUE(fromZero) << fromZero.error();
    EXPECT_NEAR(fromZero->sentences[0].values[0], -0.02580483475893059, 2e-6);  // [CLS] is no longer kept
    EXPECT_NEAR(fromZero->sentences[0].values[7], 0.04944005197894991, 2e-6);   // "mat"
    auto again = attributeSimilarity(*m, a, b, {});
    ASSERT_TRUE(again);
    EXPECT_EQ(again->sentences[0].values, s->sentences[0].values);
    // A sentence compared with itself: cosine 1.
    auto self = attributeSimilarity(*m, a, a, {});
    ASSERT_TRUE(self);
    EXPECT_NEAR(self->cosine, 1.0, 1e-6);
}

TEST(TextSimilarity, RefusesBadOptionsAndCancels) {
    SimilarityOptions o;
    o.steps = 0;
    EXPECT_EQ(checkSimilarityOptions(o).error(), "--steps must be from 1 to 4096, not 0");
    o = {};
    o.quadrature = "simpson";
    EXPECT_EQ(checkSimilarityOptions(o).error(), "unknown quadrature 'simpson' (use gauss-legendre, trapezoid or midpoint)");
    o = {};
    o.baseline = "mask";
    EXPECT_NE(checkSimilarityOptions(o).error().find("unknown baseline 'mask'"), std::string::npos);
    const auto m = sample();
    ASSERT_TRUE(m);
    int calls = 0;
    const auto cancelled = attributeSimilarity(*m, "a cat", "a dog", {}, [&](double) { return ++calls < 2; });
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error(), "similarity cancelled");
    EXPECT_EQ(calls, 2);
}
