#pragma once
// Caption metrics for models that describe a scene in words: corpus BLEU-1..4 (Papineni et al.
// 2002, as NLTK's corpus_bleu with uniform weights and no smoothing), exact match against several
// references, and an accumulator of attention correctness per word class (size, colour, shape,
// relation) for the scene vocabulary. Pure C++: no tensors, no images.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/shard.h"
#include "common/words.h"

namespace saccade {

/// Corpus BLEU scores. bleu[n - 1] is BLEU-n in [0, 1]; lengths are in words (tokens).
struct BleuScores {
    double bleu[4] = {0, 0, 0, 0};
    double brevityPenalty = 0;         ///< 1 if c > r, else exp(1 - r / c); 0 when c == 0
    std::int64_t candidateLength = 0;  ///< c: total candidate words over the corpus
    std::int64_t referenceLength = 0;  ///< r: summed per-sentence closest reference lengths
    std::int64_t matches[4] = {0, 0, 0, 0};  ///< clipped n-gram matches, n = 1..4, over the corpus
    std::int64_t totals[4] = {0, 0, 0, 0};   ///< candidate n-grams, n = 1..4
};

/// BLEU and the brevity penalty from the counts of `counts` (matches, totals, c, r): how
/// corpusBleu ends, and how the shards of an evaluation are merged (their counts summed).
BleuScores bleuFromCounts(const BleuScores& counts);

/// Corpus BLEU-1..4 over tokenised sentences. candidates[i] is scored against references[i]
/// (any number of references). Clipped n-gram matches (each n-gram's count clipped by its largest
/// count in any one reference of that sentence) and candidate n-gram totals are summed over the
/// whole corpus before dividing, giving p_k; BLEU-n = BP * exp(mean over k = 1..n of log p_k),
/// and 0 when any of those p_k is 0 (no smoothing). r sums, per sentence, the reference length
/// closest to the candidate's (ties go to the shorter); a sentence without references adds 0.
/// An empty corpus or c == 0 gives all zeros. Mismatched sizes are a caller bug: asserted in
/// debug builds, and all zeros otherwise.
BleuScores corpusBleu(const std::vector<std::vector<std::string>>& candidates,
                      const std::vector<std::vector<std::vector<std::string>>>& references);

/// True when `candidate` equals one of `references` word for word (false with no references).
bool exactMatch(const std::vector<std::string>& candidate,
                const std::vector<std::vector<std::string>>& references);

/// The classes of words in scene captions.
enum class WordClass { Size, Colour, Shape, Relation, Other };

/// "size", "colour", "shape", "relation" or "other".
std::string wordClassName(WordClass wordClass);

/// The class of a scene word (case-sensitive, lower case): small, large are sizes; red, green,
/// blue, yellow, white, purple colours; circle, square, triangle, cross shapes; left, right, of,
/// above, below relations; anything else Other.
WordClass sceneWordClass(const std::string& word);

/// Attention correctness accumulated per word class (keyed by name, e.g. wordClassName()): for
/// each generated word, the attention mass on the object the word is about (a fraction in
/// [0, 1]) and whether the attention hit it.
struct AttentionCorrectness {
    struct Entry {
        ExactSum massSum;        ///< summed attention mass (order-independent: shards add up exactly)
        std::int64_t hits = 0;   ///< words whose attention hit the object
        std::int64_t words = 0;  ///< words counted
    };
    std::map<std::string, Entry> byClass;

    /// Counts one word of class `wordClass` with attention `mass` on its object and `hit`.
    void add(const std::string& wordClass, double mass, bool hit);
    /// Mean mass over the class's words; 0 when it has none.
    double mass(const std::string& wordClass) const;
    /// Fraction of the class's words that hit, in [0, 1]; 0 when it has none.
    double hitRate(const std::string& wordClass) const;
    /// The sums over `classes` (names not seen count as empty).
    Entry total(const std::vector<std::string>& classes) const;
};

/// Figures of one caption rule over a set of images, all from counts and order-independent sums,
/// so the shards of an evaluation merge into exactly the unsharded figures.
struct CaptionScores {
    std::string rule;
    BleuScores bleu;
    std::int64_t images = 0, exact = 0;
    double exactMatch = 0;
    AttentionCorrectness correctness;  ///< per word class; mass and hit rate
};
/// The figures from their counts: BLEU from `bleuCounts` (bleuFromCounts), the exact-match rate.
CaptionScores captionScores(const std::string& rule, const BleuScores& bleuCounts, std::int64_t images,
                            std::int64_t exact, const AttentionCorrectness& correctness);

}  // namespace saccade
