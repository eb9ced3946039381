#include "analysis/attribution/seq_sanity_check.h"

#include <algorithm>

#include <torch/torch.h>

#include "analysis/attribution/weight_randomisation.h"
#include "data/seq_task.h"
#include "models/seq_gradient_forward.h"

namespace saccade {

namespace {

using SentenceRows = std::vector<std::vector<double>>;  // [target][source]

// Every method's map of every sentence: maps[method][sentence].
Result<std::vector<std::vector<SentenceRows>>> allSentenceMaps(
    SeqGradientForward& f, const std::vector<SeqSample>& sentences,
    const std::vector<std::string>& methods, const SeqAttributionOptions& attribution) {
    std::vector<std::vector<SentenceRows>> maps(methods.size());
    for (std::size_t m = 0; m < methods.size(); ++m) {
        auto options = attribution;
        options.method = methods[m];
        for (const auto& s : sentences) {
            auto a = attributeSentence(f, s.source, s.target, options);
            if (!a) return Error{methods[m] + ": " + a.error()};
            maps[m].push_back(std::move(a->rows));
        }
    }
    return maps;
}

void addSentenceStep(std::vector<SanityCurve>& curves, const std::string& layer,
                     const std::vector<std::vector<SentenceRows>>& trained,
                     const std::vector<std::vector<SentenceRows>>& now) {
    for (std::size_t m = 0; m < curves.size(); ++m) {
        SanitySums sums;
        for (std::size_t i = 0; i < trained[m].size(); ++i)
            for (std::size_t t = 0; t < trained[m][i].size() && t < now[m][i].size(); ++t)
                sums.add(trained[m][i][t], now[m][i][t]);
        curves[m].steps.push_back(sums.step(layer));
    }
}

}  // namespace

Result<std::vector<SanityCurve>> seqSanityCheck(SeqGradientForward& f,
                                                const std::vector<SeqSample>& sentences,
                                                const std::vector<std::string>& methods,
                                                const SeqAttributionOptions& attribution,
                                                std::uint64_t seed, double threshold,
                                                const Progress& progress) {
    const auto groups = f.parameterGroups();
    if (groups.empty()) return Error{"the model offers no parameter groups for the sanity check"};
    auto trained = allSentenceMaps(f, sentences, methods, attribution);
    if (!trained) return Error{trained.error()};
    std::vector<SanityCurve> curves(methods.size());
    for (std::size_t m = 0; m < methods.size(); ++m) {
        curves[m].method = methods[m];
        for (const auto& rows : (*trained)[m])
            curves[m].images +=
                std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !flatMap(r); });
    }
    const auto step = [&](const std::string& group) -> Result<Unit> {
        auto now = allSentenceMaps(f, sentences, methods, attribution);
        if (!now) return Error{now.error()};
        addSentenceStep(curves, group, *trained, *now);
        return Unit{};
    };
    if (auto done = randomisationCascade(groups, [&f] { f.weightsChanged(); }, seed, step, progress); !done)
        return Error{done.error()};
    for (auto& c : curves) finishSanityCurve(c, threshold);
    return curves;
}

}  // namespace saccade
