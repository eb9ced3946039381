#include "analysis/caption_metrics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>

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

CaptionScores captionScores(const std::string& rule, const BleuScores& bleuCounts, std::int64_t images,
                            std::int64_t exact, const AttentionCorrectness& correctness) {
    CaptionScores s;
    s.rule = rule;
    s.bleu = bleuFromCounts(bleuCounts);
    s.images = images;
    s.exact = exact;
    s.exactMatch = images ? double(exact) / double(images) : 0;
    s.correctness = correctness;
    return s;
}

bool exactMatch(const std::vector<std::string>& candidate,
                const std::vector<std::vector<std::string>>& references) {
    return std::find(references.begin(), references.end(), candidate) != references.end();
}

std::string wordClassName(WordClass wordClass) {
    switch (wordClass) {
        case WordClass::Size:
            return "size";
        case WordClass::Colour:
            return "colour";
        case WordClass::Shape:
            return "shape";
        case WordClass::Relation:
            return "relation";
        case WordClass::Other:
            break;
    }
    return "other";
}

WordClass sceneWordClass(const std::string& word) {
    static const std::map<std::string, WordClass> classes = {
        {"small", WordClass::Size},     {"large", WordClass::Size},
        {"red", WordClass::Colour},     {"green", WordClass::Colour},
        {"blue", WordClass::Colour},    {"yellow", WordClass::Colour},
        {"white", WordClass::Colour},   {"purple", WordClass::Colour},
        {"circle", WordClass::Shape},   {"square", WordClass::Shape},
        {"triangle", WordClass::Shape}, {"cross", WordClass::Shape},
        {"left", WordClass::Relation},  {"right", WordClass::Relation},
        {"of", WordClass::Relation},    {"above", WordClass::Relation},
        {"below", WordClass::Relation},
    };
    const auto it = classes.find(word);
    return it == classes.end() ? WordClass::Other : it->second;
}

void AttentionCorrectness::add(const std::string& wordClass, double mass, bool hit) {
    Entry& entry = byClass[wordClass];
    entry.massSum.add(mass);
    entry.hits += hit ? 1 : 0;
    entry.words += 1;
}

double AttentionCorrectness::mass(const std::string& wordClass) const {
    const auto it = byClass.find(wordClass);
    if (it == byClass.end() || it->second.words == 0) return 0.0;
    return it->second.massSum.value() / double(it->second.words);
}

double AttentionCorrectness::hitRate(const std::string& wordClass) const {
    const auto it = byClass.find(wordClass);
    if (it == byClass.end() || it->second.words == 0) return 0.0;
    return double(it->second.hits) / double(it->second.words);
}

AttentionCorrectness::Entry AttentionCorrectness::total(
    const std::vector<std::string>& classes) const {
    Entry sum;
    for (const auto& name : classes) {
        const auto it = byClass.find(name);
        if (it == byClass.end()) continue;
        sum.massSum.add(it->second.massSum);
        sum.hits += it->second.hits;
        sum.words += it->second.words;
    }
    return sum;
}


}  // namespace saccade
