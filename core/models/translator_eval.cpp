#include "models/translator_eval.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "metrics/alignment_error.h"
#include "models/text_encoder.h"

namespace saccade {

namespace {

// The gold alignment of a pair as a sample: per target token, its sure and possible sources.
Result<SeqSample> goldSample(const SeqPairLine& pair, std::vector<std::string> source, std::vector<std::string> target) {
    SeqSample gold;
    gold.source = std::move(source);
    gold.target = std::move(target);
    gold.sure.assign(gold.target.size(), {});
    gold.possible.assign(gold.target.size(), {});
    const auto S = int(gold.source.size()), T = int(gold.target.size());
    auto place = [&](const std::vector<std::pair<int, int>>& links, std::vector<std::vector<int>>& into) -> Result<Unit> {
        for (const auto& [s, t] : links) {
            if (s >= S || t >= T)
                return Error{"the link " + std::to_string(s) + "-" + std::to_string(t) + " lies outside the " +
                             std::to_string(S) + " source and " + std::to_string(T) + " target tokens"};
            into[size_t(t)].push_back(s);
        }
        return Unit{};
    };
    if (auto ok = place(pair.sure, gold.sure); !ok) return Error{ok.error()};
    if (auto ok = place(pair.possible, gold.possible); !ok) return Error{ok.error()};
    return gold;
}

std::vector<int> argmaxRows(const std::vector<std::vector<double>>& rows, std::size_t n) {
    std::vector<int> at(n, 0);
    for (std::size_t t = 0; t < std::min(n, rows.size()); ++t)
        at[t] = rows[t].empty() ? 0 : int(std::max_element(rows[t].begin(), rows[t].end()) - rows[t].begin());
    return at;
}

struct PairTally {
    std::int64_t n = 0, exact = 0, correctTokens = 0, tokenSlots = 0, entropySteps = 0, aerSentences = 0;
    double entropySum = 0;
    AlignmentErrorCounts aer;
    std::map<int, std::pair<std::int64_t, std::int64_t>> byLength;  // length -> (n, exact)
    std::int64_t unknownWords = 0, sentencesWithUnknown = 0, unwritable = 0;
    std::vector<std::string> unknownExamples, unwritableExamples;
};

// One pair: its translation counted, and its alignment where the file gives one.
Result<Unit> addPair(const Translator& model, const SeqPairLine& pair, const SeqEvalOptions& o, PairTally& tally) {
    auto t = model.translate(pair.source, o.rule, o.seed);
    if (!t) return Error{t.error()};
    // Words the model cannot read become <unk>: counted and named in the report, not silent.
    const auto unknown = model.tokenize(pair.source).unknown;
    tally.unknownWords += std::int64_t(unknown.size());
    tally.sentencesWithUnknown += !unknown.empty();
    for (const auto& u : unknown)
        if (tally.unknownExamples.size() < 5) tally.unknownExamples.push_back(u);
    const auto target = model.splitTarget(pair.target);
    for (const auto& token : target)  // a reference the model can never match: said, not only scored
        if (!model.writes(token)) {
            ++tally.unwritable;
            if (tally.unwritableExamples.size() < 5) tally.unwritableExamples.push_back(token);
        }
    const auto n = t->tokens.size() - (t->finished ? 1 : 0);
    const std::vector<std::string> out(t->tokens.begin(), t->tokens.begin() + std::ptrdiff_t(n));
    const bool ok = t->finished && out == target;
    ++tally.n;
    tally.exact += ok;
    auto& bucket = tally.byLength[int(t->source.size())];
    ++bucket.first;
    bucket.second += ok;
    for (std::size_t i = 0; i < std::min(out.size(), target.size()); ++i) tally.correctTokens += out[i] == target[i];
    tally.tokenSlots += std::int64_t(std::max(out.size(), target.size()));
    for (double h : t->entropy) tally.entropySum += h;
    tally.entropySteps += std::int64_t(t->entropy.size());
    if (!pair.hasAlignment) return Unit{};
    auto gold = goldSample(pair, t->source, target);
    if (!gold) return Error{gold.error()};
    if (model.canForceTarget()) {
        auto rows = model.forcedAlignment(t->source, target, o.rule, o.seed);
        if (!rows) return Error{rows.error()};
        tally.aer.add(*gold, argmaxRows(*rows, target.size()));
    } else if (ok) {
        tally.aer.add(*gold, argmaxRows(t->alignment, target.size()));
    } else {
        return Unit{};
    }
    ++tally.aerSentences;
    return Unit{};
}

}  // namespace

Result<SeqEvalReport> evaluatePairs(const Translator& model, const std::vector<SeqPairLine>& pairs, const std::string& name,
                                    const SeqEvalOptions& o, const SeqEvalProgress& onProgress) {
    if (model.asTextEncoder()) return Error{writesNoTextLine(model, "there is no output to score against the pairs")};
    if (o.limit < 1) return Error{"the limit must be at least 1 pair"};
    const auto N = std::min<std::int64_t>(o.limit, std::int64_t(pairs.size()));
    const auto t0 = std::chrono::steady_clock::now();
    PairTally tally;
    bool anyAlignment = false;
    for (std::int64_t i = 0; i < N; ++i) {
        if (onProgress && i % 10 == 0 && !onProgress(i, N)) return Error{"evaluation cancelled"};
        const auto& pair = pairs[size_t(i)];
        anyAlignment = anyAlignment || pair.hasAlignment;
        if (auto ok = addPair(model, pair, o, tally); !ok) return Error{name + ":" + std::to_string(pair.line) + ": " + ok.error()};
    }
    SeqEvalReport r;
    r.task = model.taskName();
    r.rule = o.rule.empty() ? model.deterministicRule() : o.rule;
    r.model = model.path();
    r.data = name;
    r.n = N;
    r.exactMatch = double(tally.exact) / double(N);
    r.tokenAccuracy = tally.tokenSlots ? double(tally.correctTokens) / double(tally.tokenSlots) : 0;
    r.aerMeasured = tally.aerSentences > 0;
    r.aer = tally.aer.rate();
    r.aerSentences = tally.aerSentences;
    r.aerSource = !anyAlignment ? "not measured: the file gives no gold alignment"
                  : model.canForceTarget()
                      ? "decoder fed the reference output; A = the argmax source token of every target token with a gold "
                        "link; AER = 1 - (|A&S| + |A&P|) / (|A| + |S|)"
                      : "the model's own output on the sentences it got exactly right (it cannot be fed a reference); A = "
                        "the argmax source token of every target token with a gold link; AER = 1 - (|A&S| + |A&P|) / (|A| + |S|)";
    r.entropy = tally.entropySteps ? tally.entropySum / double(tally.entropySteps) : 0;
    r.permutationNote = "the permutation test runs on a task's test split only";
    for (const auto& [len, counts] : tally.byLength)
        r.byLength.push_back({len, counts.first, double(counts.second) / double(counts.first), true});
    r.unknownSourceWords = tally.unknownWords;
    r.sentencesWithUnknown = tally.sentencesWithUnknown;
    r.unknownExamples = tally.unknownExamples;
    r.unwritableTargetTokens = tally.unwritable;
    r.unwritableExamples = tally.unwritableExamples;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (onProgress) onProgress(N, N);
    return r;
}

}  // namespace saccade
