#pragma once
// Corpus BLEU-1..4 (Papineni et al. 2002, as NLTK's corpus_bleu with uniform weights and no
// smoothing) and exact match against several references, over tokenised sentences. Pure C++:
// no tensors, no images.

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace saccade
