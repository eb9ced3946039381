#include "models/seq/seq_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>

#include <torch/torch.h>

#include "metrics/alignment_error.h"
#include "common/seed_mix.h"
#include "models/model_loading.h"
#include "models/seq/seq_batch.h"
#include "models/seq/seq_gradient.h"
#include "models/seq/seq_net.h"
#include "models/translation_maps.h"
#include "trace/rule_kind.h"

namespace saccade {

struct SeqModel::Impl {
    std::string path;
    CheckpointHeader header;
    SeqConfig config;
    std::shared_ptr<const SeqTask> task;
    std::shared_ptr<SeqNetBase> net;
    std::unique_ptr<SeqNetGradient> gradient;  // made on first use
    std::once_flag gradientMade;

    Result<SelectionOptions> rule(const std::string& spec) const {
        const std::string name = spec.empty() ? (config.hard() && !config.transformer() ? "argmax" : "soft") : spec;
        const auto kind = ruleKindOf(name);
        if (kind != RuleKind::Soft && kind != RuleKind::Argmax && kind != RuleKind::Sample)
            return Error{"unknown rule '" + name + "' for a sequence model (use soft, argmax or sample)"};
        if (config.transformer() && kind != RuleKind::Soft)
            return Error{"a Transformer's attention is soft only (rule soft)"};
        auto r = parseSelectionRule(name);
        if (!r) return Error{r.error()};
        r.value().checkFinite = false;
        return r;
    }
};

SeqModel::SeqModel(std::unique_ptr<Impl> impl) : m(std::move(impl)) {}
SeqModel::~SeqModel() = default;

const SeqConfig& SeqModel::config() const { return m->config; }
const SeqTask* SeqModel::task() const { return m->task.get(); }
std::string SeqModel::taskName() const { return m->task->name(); }
SeqTokenKind SeqModel::tokenKind() const { return m->task->tokenKind(); }
SeqTokens SeqModel::tokenize(const std::string& text) const { return m->task->tokenize(text); }
std::vector<std::string> SeqModel::splitTarget(const std::string& text) const { return m->task->tokenize(text).tokens; }
bool SeqModel::writes(const std::string& token) const { return m->task->targetVocab().contains(token); }
const CheckpointInfo& SeqModel::info() const { return m->header.info; }
const std::string& SeqModel::path() const { return m->path; }

std::vector<std::string> SeqModel::rules() const {
    if (m->config.transformer()) return {"soft"};
    if (m->config.hard()) return {"argmax", "soft", "sample"};
    return {"soft", "argmax", "sample"};
}

SeqGradientForward* SeqModel::gradientForward() const {
    std::call_once(m->gradientMade, [this] {
        auto rules = this->rules();
        rules.erase(std::remove(rules.begin(), rules.end(), "sample"), rules.end());
        m->gradient = std::make_unique<SeqNetGradient>(m->net, m->task, m->header.device, std::move(rules),
                                                       [impl = m.get()](const std::string& r) { return impl->rule(r); });
    });
    return m->gradient.get();
}

std::string SeqModel::describe() const {
    const auto& c = m->config;
    const std::string kind = c.transformer() ? "transformer " + std::to_string(c.layers) + "x" + std::to_string(c.heads)
                                             : c.scorer + (c.hard() ? ", hard" : "");
    return c.task + ", " + kind;
}

bool isSeqCheckpoint(const std::string& path) {
    auto info = readCheckpointInfo(path);
    return info && info->modelType == "seq";
}

Result<std::unique_ptr<SeqModel>> SeqModel::open(const std::string& path, const std::string& device) {
    auto header = openCheckpoint(path, device, "seq", "a sequence model");
    if (!header) return Error{header.error()};
    auto config = seqConfigFromJson(header->info.configJson);
    if (!config) return configError(path, config.error());
    auto task = openSeqTask(config->task);
    if (!task) return configError(path, "it was trained on a task this build does not know: " + task.error());
    if ((*task)->sourceVocab().size() != config->sourceVocab || (*task)->targetVocab().size() != config->targetVocab)
        return configError(path, "its vocabularies (" + std::to_string(config->sourceVocab) + " and " +
                                     std::to_string(config->targetVocab) + " tokens) are not those of this build's '" +
                                     config->task + "' task (" + std::to_string((*task)->sourceVocab().size()) + " and " +
                                     std::to_string((*task)->targetVocab().size()) + ")");
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->header = *header;
    impl->config = *config;
    impl->task = *task;
    auto net = buildNet(path, [&] { return makeSeqNet(*config); });
    if (!net) return Error{net.error()};
    impl->net = *net;
    if (auto loaded = loadNetWeights(*impl->net, path, impl->header); !loaded) return Error{loaded.error()};
    return std::unique_ptr<SeqModel>(new SeqModel(std::move(impl)));
}


Result<SeqTranslation> SeqModel::translate(const std::string& text, const std::string& ruleSpec, std::uint64_t seed) const {
    auto rule = m->rule(ruleSpec);
    if (!rule) return Error{rule.error()};
    const auto& task = *m->task;
    auto tokens = task.tokenize(text);
    if (tokens.tokens.empty()) return Error{"nothing to translate: the text holds no tokens"};
    if (tokens.tokens.size() > kMaxSeqTokens)
        return Error{"the text holds " + std::to_string(tokens.tokens.size()) + " tokens; at most " +
                     std::to_string(kMaxSeqTokens) + " are read"};
    SeqTranslation out;
    out.rule = selectionRuleSpec(*rule);
    out.seed = seed;
    out.source = tokens.tokens;
    out.unknown = tokens.unknown;
    auto ref = task.reference(text);
    out.hasReference = ref.ok();
    if (ref) out.reference = *ref;
    else out.referenceError = ref.error();
    try {
        torch::NoGradGuard noGrad;
        const auto batch = makeSeqSource(task, tokens.tokens, m->header.device);
        const auto enc = m->net->encode(batch.source, batch.lengths);
        Rng rng(seed);
        const auto steps = m->net->decode(enc, m->config.maxTarget, *rule, rng);
        const auto alpha = steps.alpha[0].to(torch::kCPU, torch::kDouble).contiguous();
        const auto probs = torch::softmax(steps.logits[0].to(torch::kDouble), -1).to(torch::kCPU);
        const auto top = probs.topk(std::min<std::int64_t>(5, probs.size(1)), -1);
        const auto topP = std::get<0>(top).contiguous(), topId = std::get<1>(top).contiguous();
        const auto words = steps.tokens[0].to(torch::kCPU).contiguous();
        const auto chosen = steps.chosen[0].to(torch::kCPU, torch::kLong).contiguous();
        const auto entropy = steps.entropy[0].to(torch::kCPU, torch::kDouble).contiguous();
        const torch::Tensor centre = steps.centre.defined() ? steps.centre[0].to(torch::kCPU, torch::kDouble).contiguous() : torch::Tensor();
        const auto T = words.size(0), S = alpha.size(1), K = topP.size(1);
        const auto a = alpha.accessor<double, 2>();
        const auto w = words.accessor<std::int64_t, 1>();
        const auto ch = chosen.accessor<std::int64_t, 1>();
        const auto en = entropy.accessor<double, 1>();
        const auto tp = topP.accessor<double, 2>();
        const auto ti = topId.accessor<std::int64_t, 2>();
        for (std::int64_t t = 0; t < T; ++t) {
            const auto id = w[t];
            out.tokens.push_back(task.targetVocab().token(id));
            std::vector<double> row(static_cast<std::size_t>(S));
            for (std::int64_t s = 0; s < S; ++s) row[size_t(s)] = a[t][s];
            out.alignment.push_back(std::move(row));
            out.chosen.push_back(int(ch[t]));
            out.entropy.push_back(en[t]);
            if (centre.defined()) out.centre.push_back(centre[t].item<double>());
            std::vector<std::pair<std::string, double>> best;
            for (std::int64_t k = 0; k < K; ++k) best.emplace_back(task.targetVocab().token(ti[t][k]), tp[t][k]);
            out.topWords.push_back(std::move(best));
            if (id == kSeqEnd) {
                out.finished = true;
                break;
            }
        }
        if (steps.cross.defined()) {
            const auto T = std::int64_t(out.tokens.size()), S = std::int64_t(out.source.size());
            addTranslationMaps(out, steps.cross[0].narrow(2, 0, T).narrow(3, 0, S), steps.encoderSelf[0].narrow(2, 0, S).narrow(3, 0, S),
                               steps.decoderSelf[0].narrow(2, 0, T).narrow(3, 0, T));
        }
    } catch (const c10::Error& e) {
        return Error{"translation failed: " + firstLine(e.what_without_backtrace())};
    }
    const auto n = out.tokens.size() - (out.finished ? 1 : 0);
    out.output = task.detokenize(std::vector<std::string>(out.tokens.begin(), out.tokens.begin() + std::ptrdiff_t(n)));
    return out;
}

Result<std::vector<std::vector<double>>> SeqModel::forcedAlignment(const std::vector<std::string>& source,
                                                                   const std::vector<std::string>& target,
                                                                   const std::string& ruleSpec, std::uint64_t seed) const {
    auto rule = m->rule(ruleSpec);
    if (!rule) return Error{rule.error()};
    if (source.empty() || target.empty()) return Error{"an empty source or target has no alignment"};
    SeqSample sample;
    sample.source = source;
    sample.target = target;
    try {
        torch::NoGradGuard noGrad;
        const auto batch = makeSeqBatch(*m->task, {sample}, m->header.device);
        const auto enc = m->net->encode(batch.source, batch.lengths);
        Rng rng(seed);
        const auto forced = m->net->teacherForced(enc, batch.input, *rule, rng);
        const auto alpha = forced.alpha[0].to(torch::kCPU, torch::kDouble).contiguous();
        const auto T = std::min<std::int64_t>(alpha.size(0), std::int64_t(target.size()));
        const auto S = std::min<std::int64_t>(alpha.size(1), std::int64_t(source.size()));
        return matrixRows(alpha.narrow(0, 0, T).narrow(1, 0, S));
    } catch (const c10::Error& e) {
        return Error{"alignment failed: " + firstLine(e.what_without_backtrace())};
    }
}

namespace {
double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

Result<SeqEvalReport> SeqModel::evaluate(const SeqEvalOptions& o, const SeqEvalProgress& onProgress) const {
    auto rule = m->rule(o.rule);
    if (!rule) return Error{rule.error()};
    if (o.limit < 1) return Error{"the limit must be at least 1 sentence"};
    const auto& task = *m->task;
    const auto N = std::min<std::int64_t>(o.limit, SeqTask::kTestSize);
    const auto t0 = std::chrono::steady_clock::now();
    SeqEvalReport r;
    r.task = task.name();
    r.rule = selectionRuleSpec(*rule);
    r.model = m->path;
    r.n = N;
    std::int64_t exact = 0, correctTokens = 0, tokenSlots = 0;
    AlignmentErrorCounts aer;
    double entropySum = 0;
    std::int64_t entropySteps = 0;
    std::vector<double> tvs;
    std::map<int, std::pair<std::int64_t, std::int64_t>> byLength;  // length -> (n, exact)
    constexpr std::int64_t kBatch = 250;
    try {
        torch::NoGradGuard noGrad;
        for (std::int64_t first = 0; first < N; first += kBatch) {
            if (onProgress && !onProgress(first, N)) return Error{"evaluation cancelled"};
            std::vector<SeqSample> samples;
            for (std::int64_t i = first; i < std::min(N, first + kBatch); ++i)
                samples.push_back(task.sample(Split::Test, i, kSeqTestSeed));
            const auto batch = makeSeqBatch(task, samples, m->header.device);
            const auto enc = m->net->encode(batch.source, batch.lengths);
            Rng rng(mixSeed(o.seed, 0x5e9, std::uint64_t(first)));
            const auto greedy = m->net->decode(enc, m->config.maxTarget, *rule, rng);
            const auto wordsT = greedy.tokens.to(torch::kCPU).contiguous();
            const auto entT = greedy.entropy.to(torch::kCPU, torch::kDouble).contiguous();
            torch::Tensor tvT;
            if (o.permutation) {
                const auto d = m->net->permutationDistance(enc, greedy.tokens, *rule, rng);
                if (d.defined()) tvT = d.to(torch::kCPU, torch::kDouble).contiguous();
            }
            const auto forced = m->net->teacherForced(enc, batch.input, *rule, rng);
            const auto pointedT =
                (rule->rule == SelectionRule::Soft ? forced.alpha.argmax(-1) : forced.chosen).to(torch::kCPU, torch::kLong).contiguous();
            const auto words = wordsT.accessor<std::int64_t, 2>();
            const auto ent = entT.accessor<double, 2>();
            const auto pointed = pointedT.accessor<std::int64_t, 2>();
            const auto T = wordsT.size(1);
            const double* tv = tvT.defined() ? tvT.data_ptr<double>() : nullptr;  // [B, T] like the words
            for (std::size_t b = 0; b < samples.size(); ++b) {
                const auto& s = samples[b];
                const auto row = std::int64_t(b);
                std::vector<std::string> out;
                std::int64_t steps = 0;
                bool finished = false;
                for (std::int64_t t = 0; t < T && !finished; ++t) {
                    ++steps;
                    const auto id = words[row][t];
                    finished = id == kSeqEnd;
                    if (!finished) out.push_back(task.targetVocab().token(id));
                }
                for (std::int64_t t = 0; t < steps; ++t) {
                    entropySum += ent[row][t];
                    if (tv) tvs.push_back(tv[row * T + t]);
                }
                entropySteps += steps;
                const bool ok = finished && out == s.target;
                exact += ok;
                auto& bucket = byLength[int(s.source.size())];
                ++bucket.first;
                bucket.second += ok;
                const auto common = std::min(out.size(), s.target.size());
                for (std::size_t t = 0; t < common; ++t) correctTokens += out[t] == s.target[t];
                tokenSlots += std::int64_t(std::max(out.size(), s.target.size()));
                std::vector<int> at(s.target.size());
                for (std::size_t t = 0; t < at.size(); ++t) at[t] = int(pointed[row][std::int64_t(t)]);
                aer.add(s, at);
            }
        }
    } catch (const c10::Error& e) {
        return Error{"evaluation failed: " + firstLine(e.what_without_backtrace())};
    }
    r.exactMatch = double(exact) / double(N);
    r.tokenAccuracy = tokenSlots ? double(correctTokens) / double(tokenSlots) : 0;
    r.aer = aer.rate();
    r.entropy = entropySteps ? entropySum / double(entropySteps) : 0;
    r.aerSentences = N;
    r.aerSource = "decoder fed the reference output; A = the argmax (soft) or chosen (hard) source token of every target "
                  "token with a gold alignment; AER = 1 - (|A&S| + |A&P|) / (|A| + |S|)";
    r.permutationTested = !tvs.empty();
    if (!r.permutationTested)
        r.permutationNote = o.permutation ? "a Transformer step attends with every layer and head, not one distribution to shuffle"
                                          : "not asked for";
    if (!tvs.empty()) {
        r.permutationMedianTv = median(tvs);
        double sum = 0;
        std::int64_t small = 0;
        for (double v : tvs) { sum += v; small += v < 0.05; }
        r.permutationMeanTv = sum / double(tvs.size());
        r.permutationSmallShare = double(small) / double(tvs.size());
    }
    const auto [lo, hi] = task.trainLengths();
    for (const auto& [len, counts] : byLength)
        r.byLength.push_back({len, counts.first, double(counts.second) / double(counts.first), len >= lo && len <= hi});
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (onProgress) onProgress(N, N);
    return r;
}

}  // namespace saccade
