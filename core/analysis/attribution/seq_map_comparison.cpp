#include "analysis/attribution/seq_map_comparison.h"

#include <chrono>

#include <torch/torch.h>

#include "common/rng.h"
#include "common/seed_mix.h"
#include "analysis/attribution/image_maps.h"
#include "analysis/attribution/seq_sanity_check.h"
#include "metrics/alignment_error.h"
#include "models/seq_gradient_forward.h"
#include "models/text_encoder.h"

namespace saccade {

namespace {

// The fall of each step's reference-token probability when the source token `at[t]` is read as
// <unk> (rows of -1 remove nothing), one sentence per step in one batch.
std::vector<double> pointedFall(SeqGradientForward& f, const SeqForcedInput& in, const std::string& rule,
                                const std::vector<int>& at) {
    torch::NoGradGuard noGrad;
    const auto T = std::int64_t(at.size()), S = in.source.size(1);  // the T steps of in.targetIds
    auto copies = in.embedded.repeat({T + 1, 1, 1});
    for (std::int64_t t = 0; t < T; ++t)
        if (at[size_t(t)] >= 0) copies[t][at[size_t(t)]].copy_(in.unknown);
    const auto out = f.forced(copies, in.source.expand({T + 1, S}), in.input.expand({T + 1, T}), rule);
    const auto probs = torch::softmax(out.logits.narrow(1, 0, T).to(torch::kDouble), -1).cpu();  // [T + 1, T, V]
    std::vector<double> fall;
    for (std::int64_t t = 0; t < T; ++t) {
        const auto id = in.targetIds[size_t(t)];
        fall.push_back(probs[T][t][id].item<double>() - probs[t][t][id].item<double>());
    }
    return fall;
}

struct MethodSums {
    AlignmentErrorCounts aer;
    double fall = 0, completeness = 0, seconds = 0;
    std::int64_t completenessCount = 0;
};

// One sentence: every method's map, its AER counts and its deletion fall; and the random fall.
Result<double> scoreSentence(SeqGradientForward& f, const SeqSample& s, const SeqMapComparisonOptions& o,
                             const std::string& rule, std::vector<MethodSums>& sums, std::uint64_t sentenceSeed) {
    auto in = f.prepare(s.source, s.target);
    if (!in) return Error{in.error()};
    for (std::size_t m = 0; m < o.methods.size(); ++m) {
        auto options = o.attribution;
        options.method = o.methods[m];
        auto a = attributeSentence(f, s.source, s.target, options);
        if (!a) return Error{a.error()};
        sums[m].aer.add(s, a->pointed);
        for (double v : pointedFall(f, *in, a->rule, a->pointed)) sums[m].fall += v;
        sums[m].seconds += a->seconds;
        if (a->completenessError) {
            sums[m].completeness += *a->completenessError;
            ++sums[m].completenessCount;
        }
    }
    Rng rng(sentenceSeed);
    std::vector<int> random;
    const auto draws = rng.uniform({std::int64_t(in->targetIds.size())}, torch::kCPU);
    for (std::int64_t t = 0; t < draws.size(0); ++t)
        random.push_back(std::min(int(s.source.size()) - 1, int(draws[t].item<double>() * double(s.source.size()))));
    double fall = 0;
    for (double v : pointedFall(f, *in, rule, random)) fall += v;
    return fall;
}

}  // namespace

Result<SeqMapComparisonReport> compareSeqMaps(const Translator& model, const SeqMapComparisonOptions& asked,
                                              const Progress& progress) {
    if (model.asTextEncoder())
        return Error{writesNoTextLine(model, "no attribution map of output tokens can be scored")};
    auto* f = model.gradientForward();
    if (!f)
        return Error{model.path() + " offers no teacher-forced forward over its source's embeddings (an import's "
                     "contract has no entry for them): attribution maps need one of Saccade's sequence models"};
    if (!model.task()) return Error{model.path() + " has no task with a test split to score maps on"};
    // The maps the model gives; the rest are left out of the table with the reason.
    auto selection = selectMethods(asked.methods, [f](const std::string& m) { return checkSeqMethod(m, *f); });
    SeqMapComparisonOptions o = asked;
    o.methods = std::move(selection.kept);
    const auto omitted = std::move(selection.omitted);
    if (o.methods.empty() && !omitted.empty()) return Error{omitted.front().second};
    if (o.limit < 1) return Error{"--limit must be at least 1 sentence"};
    if (o.sanitySentences < 0) return Error{"--sanity-images must be 0 or more sentences"};
    if (o.methods.empty()) return Error{"no methods to compare"};
    const auto t0 = std::chrono::steady_clock::now();
    const auto& task = *model.task();
    const auto N = std::min<std::int64_t>(o.limit, SeqTask::kTestSize);
    const auto sanityN = std::min<std::int64_t>(o.sanitySentences, N);  // as images: within the limit
    // The table's share of the progress bar; the sanity check has the rest.
    const double share = sanityN > 0 ? 0.5 : 1.0;
    std::vector<MethodSums> sums(o.methods.size());
    SeqMapComparisonReport report;
    report.omitted = omitted;
    report.task = task.name();
    report.model = model.path();
    report.rule = o.attribution.rule.empty() ? f->rules().front() : o.attribution.rule;
    double randomFall = 0;
    for (std::int64_t i = 0; i < N; ++i) {
        if (progress && !progress(share * double(i) / double(N))) return Error{"cancelled"};
        const auto s = task.sample(Split::Test, i, kSeqTestSeed);
        auto fall = scoreSentence(*f, s, o, report.rule, sums, mixSeed(o.seed, 0xde1, std::uint64_t(i)));
        if (!fall) return Error{"sentence " + std::to_string(i) + ": " + fall.error()};
        randomFall += *fall;
        report.tokens += std::int64_t(s.target.size()) + 1;  // and </s>
        bool linked = false;
        for (const auto& p : s.possible) linked = linked || !p.empty();
        report.aerSentences += linked;
    }
    report.sentences = N;
    const double tokens = double(std::max<std::int64_t>(1, report.tokens));
    report.randomFall = randomFall / tokens;
    for (std::size_t m = 0; m < o.methods.size(); ++m) {
        SeqMapFigures fig;
        fig.method = o.methods[m];
        if (sums[m].aer.pointed > 0) fig.aer = sums[m].aer.rate();
        fig.deletionFall = sums[m].fall / tokens;
        if (sums[m].completenessCount) fig.completenessError = sums[m].completeness / double(sums[m].completenessCount);
        fig.seconds = sums[m].seconds;
        report.maps.push_back(fig);
    }
    report.seed = o.seed;
    report.sanityThreshold = o.sanityThreshold;
    if (sanityN > 0) {
        std::vector<SeqSample> sentences;
        for (std::int64_t i = 0; i < sanityN; ++i) sentences.push_back(task.sample(Split::Test, i, kSeqTestSeed));
        const Progress rest =
            progress ? Progress([&](double x) { return progress(share + (1 - share) * x); }) : Progress{};
        auto curves = seqSanityCheck(*f, sentences, o.methods, o.attribution, o.seed, o.sanityThreshold, rest);
        if (!curves) return Error{curves.error()};
        for (std::size_t m = 0; m < curves->size(); ++m) report.maps[m].sanity = (*curves)[m];
        report.sanitySentences = sanityN;
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return report;
}

}  // namespace saccade
