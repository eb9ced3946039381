// Caption metrics: corpus BLEU on hand-computed cases (Papineni's clipping example, the brevity
// penalty and its closest-reference rule, counts summed over the corpus), exact match, the word
// classes of the scene vocabulary and the attention correctness means. Expected figures were
// checked with an independent Python implementation of NLTK's corpus_bleu (no smoothing).

#include <gtest/gtest.h>

#include <cmath>

#include "metrics/caption_metrics.h"

using namespace saccade;

namespace {

using Sentences = std::vector<std::vector<std::string>>;

BleuScores bleuOf(const std::vector<std::string>& candidates,
                  const std::vector<std::vector<std::string>>& references) {
    Sentences cands;
    std::vector<Sentences> refs;
    for (const auto& c : candidates) cands.push_back(splitWords(c));
    for (const auto& set : references) {
        refs.emplace_back();
        for (const auto& r : set) refs.back().push_back(splitWords(r));
    }
    return corpusBleu(cands, refs);
}

}  // namespace

TEST(CaptionMetrics, PapineniClippedUnigramPrecision) {
    // "the" occurs 7 times; at most 2 times in one reference (the first), so 2 / 7 (a sum over
    // the references would give 3 / 7). No bigram matches. c = 7; the closest reference is 7.
    const BleuScores s = bleuOf({"the the the the the the the"},
                                {{"the cat is on the mat", "there is a cat on the mat"}});
    EXPECT_EQ(s.candidateLength, 7);
    EXPECT_EQ(s.referenceLength, 7);
    EXPECT_DOUBLE_EQ(s.brevityPenalty, 1.0);
    EXPECT_NEAR(s.bleu[0], 2.0 / 7.0, 1e-12);
    EXPECT_EQ(s.bleu[1], 0.0);
    EXPECT_EQ(s.bleu[3], 0.0);
}

TEST(CaptionMetrics, PerfectMatchScoresOne) {
    const BleuScores s = bleuOf({"a small red circle left of a blue square"},
                                {{"a small red circle left of a blue square"}});
    for (int n = 0; n < 4; ++n) EXPECT_NEAR(s.bleu[n], 1.0, 1e-12) << "BLEU-" << n + 1;
    EXPECT_EQ(s.candidateLength, 9);
    EXPECT_EQ(s.referenceLength, 9);
}

TEST(CaptionMetrics, BrevityPenaltyUsesTheClosestReferenceLength) {
    // c = 5; references of 2 and 7 words: 7 is closer (2 away, against 3), so r = 7 and
    // BP = exp(1 - 7 / 5) = exp(-0.4) = 0.67032...; every n-gram matches, so BLEU-n = BP.
    // (Taking the shortest reference would give r = 2 < c and BP = 1.)
    const BleuScores s =
        bleuOf({"the cat sat on the"}, {{"the cat", "the cat sat on the mat today"}});
    EXPECT_EQ(s.candidateLength, 5);
    EXPECT_EQ(s.referenceLength, 7);
    EXPECT_NEAR(s.brevityPenalty, std::exp(-0.4), 1e-12);
    EXPECT_NEAR(s.brevityPenalty, 0.6703200460356393, 1e-12);
    for (int n = 0; n < 4; ++n) EXPECT_NEAR(s.bleu[n], std::exp(-0.4), 1e-12);
}

TEST(CaptionMetrics, ClosestReferenceTieGoesToTheShorter) {
    // c = 5; references of 6 and 4 words are both 1 away: the shorter wins, r = 4 < c, BP = 1.
    // (The longer would give BP = exp(1 - 6 / 5).)
    for (const auto& refs : std::vector<std::vector<std::string>>{{"a b c d e f", "a b c d"},
                                                                  {"a b c d", "a b c d e f"}}) {
        const BleuScores s = bleuOf({"a b c d e"}, {refs});
        EXPECT_EQ(s.referenceLength, 4);
        EXPECT_DOUBLE_EQ(s.brevityPenalty, 1.0);
        EXPECT_NEAR(s.bleu[3], 1.0, 1e-12);
    }
}

TEST(CaptionMetrics, CountsAreSummedOverTheCorpus) {
    // Sentence 1 matches its reference exactly: 6/6, 5/5, 4/4, 3/3 n-grams; c = r = 6.
    // Sentence 2 "a dog ran on grass" vs "a dog ran in the grass": unigrams a, dog, ran, grass
    // match 4/5; bigrams "a dog", "dog ran" 2/4; trigram "a dog ran" 1/3; 4-grams 0/2;
    // c = 5, r = 6.
    // Corpus: p1 = 10/11, p2 = 7/9, p3 = 5/7, p4 = 3/5; c = 11, r = 12, BP = exp(-1/11).
    // BLEU-4 = exp(-1/11) * (10*7*5*3 / (11*9*7*5))^(1/4) = exp(-1/11) * (10/33)^(1/4)
    //        = 0.6774702029865...; the mean of the per-sentence scores would be (1 + 0) / 2.
    const BleuScores s = bleuOf({"the cat sat on the mat", "a dog ran on grass"},
                                {{"the cat sat on the mat"}, {"a dog ran in the grass"}});
    const double bp = std::exp(-1.0 / 11.0);
    EXPECT_EQ(s.candidateLength, 11);
    EXPECT_EQ(s.referenceLength, 12);
    EXPECT_NEAR(s.brevityPenalty, bp, 1e-12);
    EXPECT_NEAR(s.bleu[0], bp * 10.0 / 11.0, 1e-9);
    EXPECT_NEAR(s.bleu[1], bp * std::sqrt(70.0 / 99.0), 1e-9);
    EXPECT_NEAR(s.bleu[2], bp * std::cbrt(350.0 / 693.0), 1e-9);
    EXPECT_NEAR(s.bleu[3], bp * std::pow(10.0 / 33.0, 0.25), 1e-9);
    EXPECT_NEAR(s.bleu[3], 0.6774702029865007, 1e-9);
}

TEST(CaptionMetrics, NoFourGramMatchGivesZeroBleu4) {
    // "a red circle left of the square" vs "a red circle right of the square": 6/7 unigrams,
    // 4/6 bigrams (a red, red circle, of the, the square), 2/5 trigrams, 0/4 4-grams; BP = 1.
    const BleuScores s =
        bleuOf({"a red circle left of the square"}, {{"a red circle right of the square"}});
    EXPECT_NEAR(s.bleu[0], 6.0 / 7.0, 1e-12);
    EXPECT_NEAR(s.bleu[1], std::sqrt(4.0 / 7.0), 1e-12);
    EXPECT_NEAR(s.bleu[2], std::cbrt(8.0 / 35.0), 1e-12);
    EXPECT_EQ(s.bleu[3], 0.0);
}

TEST(CaptionMetrics, EmptyInputsGiveZeros) {
    const BleuScores none = corpusBleu({}, {});
    const BleuScores empty = bleuOf({""}, {{"a cat"}});
    for (const BleuScores& s : {none, empty}) {
        for (int n = 0; n < 4; ++n) EXPECT_EQ(s.bleu[n], 0.0);
        EXPECT_EQ(s.brevityPenalty, 0.0);
        EXPECT_EQ(s.candidateLength, 0);
    }
    BleuScores mismatched = bleuOf({"a"}, {{"a"}});
    EXPECT_DEBUG_DEATH(mismatched = corpusBleu({{"a"}, {"b"}}, {{{"a"}}}), "");
#ifdef NDEBUG
    EXPECT_EQ(mismatched.bleu[0], 0.0);
    EXPECT_EQ(mismatched.candidateLength, 0);
#endif
}

TEST(CaptionMetrics, ExactMatchAgainstSeveralReferences) {
    const std::vector<std::vector<std::string>> refs = {
        splitWords("a red circle"), splitWords("a red circle left of a square")};
    EXPECT_TRUE(exactMatch(splitWords("a red circle"), refs));
    EXPECT_TRUE(exactMatch(splitWords("a red circle left of a square"), refs));
    EXPECT_FALSE(exactMatch(splitWords("a red circle left"), refs));
    EXPECT_FALSE(exactMatch(splitWords("a blue circle"), refs));
    EXPECT_FALSE(exactMatch(splitWords("a red circle"), {}));
}

TEST(CaptionMetrics, SceneWordClasses) {
    for (const char* w : {"small", "large"}) EXPECT_EQ(sceneWordClass(w), WordClass::Size) << w;
    for (const char* w : {"red", "green", "blue", "yellow", "white", "purple"})
        EXPECT_EQ(sceneWordClass(w), WordClass::Colour) << w;
    for (const char* w : {"circle", "square", "triangle", "cross"})
        EXPECT_EQ(sceneWordClass(w), WordClass::Shape) << w;
    for (const char* w : {"left", "right", "of", "above", "below"})
        EXPECT_EQ(sceneWordClass(w), WordClass::Relation) << w;
    for (const char* w : {"a", "the", "", "Red", "circles"})
        EXPECT_EQ(sceneWordClass(w), WordClass::Other) << w;
    EXPECT_EQ(wordClassName(WordClass::Size), "size");
    EXPECT_EQ(wordClassName(WordClass::Colour), "colour");
    EXPECT_EQ(wordClassName(WordClass::Shape), "shape");
    EXPECT_EQ(wordClassName(WordClass::Relation), "relation");
    EXPECT_EQ(wordClassName(WordClass::Other), "other");
}

TEST(CaptionMetrics, AttentionCorrectnessMeans) {
    AttentionCorrectness ac;
    ac.add("colour", 0.5, true);
    ac.add("colour", 0.25, false);
    ac.add("colour", 0.75, true);
    ac.add("shape", 0.1, false);
    EXPECT_NEAR(ac.mass("colour"), 0.5, 1e-12);  // (0.5 + 0.25 + 0.75) / 3
    EXPECT_NEAR(ac.hitRate("colour"), 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(ac.mass("shape"), 0.1, 1e-9);  // masses are summed in steps of 2^-32 (ExactSum)
    EXPECT_EQ(ac.hitRate("shape"), 0.0);
    EXPECT_EQ(ac.mass("size"), 0.0);  // no words
    EXPECT_EQ(ac.hitRate("size"), 0.0);
    const AttentionCorrectness::Entry t = ac.total({"colour", "shape", "size"});
    EXPECT_NEAR(t.massSum.value(), 1.6, 1e-9);
    EXPECT_EQ(t.hits, 2);
    EXPECT_EQ(t.words, 4);
}

TEST(CaptionMetrics, SplitAndJoinWords) {
    EXPECT_EQ(splitWords("  a  red   circle "), (std::vector<std::string>{"a", "red", "circle"}));
    EXPECT_TRUE(splitWords("").empty());
    EXPECT_TRUE(splitWords("   ").empty());
    EXPECT_EQ(joinWords({"a", "red", "circle"}), "a red circle");
    EXPECT_EQ(joinWords({}), "");
    EXPECT_EQ(joinWords(splitWords(" left  of ")), "left of");
}
