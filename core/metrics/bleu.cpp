#include "metrics/bleu.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <map>

namespace saccade {

namespace {

using NgramCounts = std::map<std::vector<std::string>, std::int64_t>;

NgramCounts countNgrams(const std::vector<std::string>& words, size_t n) {
    NgramCounts counts;
    if (words.size() < n) return counts;
    for (size_t i = 0; i + n <= words.size(); ++i)
        ++counts[std::vector<std::string>(words.begin() + i, words.begin() + i + n)];
    return counts;
}

/// The reference length closest to `candidateLength`; ties go to the shorter. 0 with none.
std::int64_t closestReferenceLength(std::int64_t candidateLength,
                                    const std::vector<std::vector<std::string>>& references) {
    bool found = false;
    std::int64_t best = 0;
    for (const auto& reference : references) {
        const auto length = static_cast<std::int64_t>(reference.size());
        const std::int64_t distance = std::llabs(length - candidateLength);
        const std::int64_t bestDistance = std::llabs(best - candidateLength);
        if (!found || distance < bestDistance || (distance == bestDistance && length < best)) {
            best = length;
            found = true;
        }
    }
    return best;
}

}  // namespace

BleuScores corpusBleu(const std::vector<std::vector<std::string>>& candidates,
                      const std::vector<std::vector<std::vector<std::string>>>& references) {
    assert(candidates.size() == references.size() && "corpusBleu: one reference set per candidate");
    BleuScores scores;
    if (candidates.empty() || candidates.size() != references.size()) return scores;

    std::int64_t* matches = scores.matches;
    std::int64_t* totals = scores.totals;
    std::int64_t c = 0, r = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
        const auto& candidate = candidates[i];
        const auto length = static_cast<std::int64_t>(candidate.size());
        c += length;
        r += closestReferenceLength(length, references[i]);
        for (size_t n = 1; n <= 4; ++n) {
            const NgramCounts counts = countNgrams(candidate, n);
            NgramCounts maxRef;
            for (const auto& reference : references[i])
                for (const auto& [gram, count] : countNgrams(reference, n)) {
                    auto& m = maxRef[gram];
                    m = std::max(m, count);
                }
            for (const auto& [gram, count] : counts) {
                totals[n - 1] += count;
                const auto it = maxRef.find(gram);
                if (it != maxRef.end()) matches[n - 1] += std::min(count, it->second);
            }
        }
    }
    scores.candidateLength = c;
    scores.referenceLength = r;
    return bleuFromCounts(scores);
}

BleuScores bleuFromCounts(const BleuScores& counts) {
    BleuScores scores = counts;
    const std::int64_t c = scores.candidateLength, r = scores.referenceLength;
    const std::int64_t* matches = scores.matches;
    const std::int64_t* totals = scores.totals;
    for (double& b : scores.bleu) b = 0;
    scores.brevityPenalty = 0;
    if (c == 0) return scores;

    scores.brevityPenalty = c > r ? 1.0 : std::exp(1.0 - double(r) / double(c));
    double logSum = 0;
    bool zero = false;
    for (int n = 1; n <= 4; ++n) {
        if (matches[n - 1] == 0 || totals[n - 1] == 0) zero = true;
        if (!zero) logSum += std::log(double(matches[n - 1]) / double(totals[n - 1]));
        scores.bleu[n - 1] = zero ? 0.0 : scores.brevityPenalty * std::exp(logSum / n);
    }
    return scores;
}

bool exactMatch(const std::vector<std::string>& candidate,
                const std::vector<std::vector<std::string>>& references) {
    return std::find(references.begin(), references.end(), candidate) != references.end();
}

}  // namespace saccade
