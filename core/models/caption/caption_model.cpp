#include "models/caption/caption_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <torch/torch.h>

#include "common/seed_mix.h"
#include "data/batch.h"
#include "models/caption/caption_data.h"
#include "models/caption/caption_eval.h"
#include "models/caption/caption_network.h"
#include "models/batched_eval.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "models/model_loading.h"
#include "common/torch_errors.h"
#include "trace/rule_kind.h"

namespace saccade {

struct CaptionModel::Impl {
    CaptionConfig config;
    CheckpointInfo info;
    torch::Device device{torch::kCPU};
    CaptionNetwork net{nullptr};
    double wordTemperature = 0;
};

namespace {

constexpr std::uint64_t kWordStream = 0x3d5;
constexpr int kMaxKSample = 10000;

std::vector<LabeledBox> truthObjects(const std::optional<GroundTruth>& truth) {
    std::vector<LabeledBox> objects;
    if (!truth) return objects;
    for (std::size_t i = 0; i < truth->boxes.size(); ++i)
        objects.push_back({truth->boxes[i], -1, i < truth->names.size() ? truth->names[i] : ""});
    return objects;
}

bool isReference(const std::string& text, const std::optional<GroundTruth>& truth) {
    return truth && std::find(truth->references.begin(), truth->references.end(), text) != truth->references.end();
}

}  // namespace

CaptionModel::CaptionModel() : m_impl(std::make_unique<Impl>()) {}
CaptionModel::~CaptionModel() = default;

Result<std::shared_ptr<CaptionModel>> CaptionModel::load(const std::string& path, const std::string& device) {
    auto header = openCheckpoint(path, device, "caption", "a captioner");
    if (!header) return Error{header.error()};
    auto config = captionConfigFromJson(header->info.configJson);
    if (!config) return configError(path, config.error());
    std::shared_ptr<CaptionModel> model(new CaptionModel());
    auto& m = *model->m_impl;
    m.config = *config;
    m.info = header->info;
    m.device = header->device;
    auto net = buildNet(path, [&] { return CaptionNetwork(m.config); });
    if (!net) return Error{net.error()};
    m.net = *net;
    if (auto loaded = loadNetWeights(*m.net, path, *header); !loaded) return Error{loaded.error()};
    return model;
}

const CaptionConfig& CaptionModel::config() const { return m_impl->config; }
const CheckpointInfo& CaptionModel::info() const { return m_impl->info; }
std::string CaptionModel::deviceName() const { return m_impl->device.str(); }
std::vector<std::string> CaptionModel::classNames() const { return m_impl->config.vocabulary; }
int CaptionModel::imageSize() const { return m_impl->config.imageSize; }
int CaptionModel::channels() const { return m_impl->config.inChannels; }
int CaptionModel::steps() const { return m_impl->config.maxLength - 1; }
TrainingMode CaptionModel::trainedMode() const { return m_impl->config.mode; }
std::vector<std::string> CaptionModel::evaluationRules() const {
    // The training-time deterministic rule first: it heads eval's figures.
    if (m_impl->config.mode == TrainingMode::Soft) return {"soft", "argmax", "sample", "beam:3"};
    return {"argmax", "soft", "sample", "beam:3"};
}

Result<Unit> CaptionModel::setWordTemperature(double t) {
    if (!std::isfinite(t) || t < 0 || t > 100) return Error{"the word temperature must be a number in [0, 100]"};
    m_impl->wordTemperature = t;
    return Unit{};
}
double CaptionModel::wordTemperature() const { return m_impl->wordTemperature; }

RuleMenu CaptionModel::ruleMenu() const { return {{"argmax", "sample", "soft", "beam", "gumbel", "ksample"}, {}}; }

std::string CaptionModel::displayName() const { return trainingModeName(m_impl->config.mode) + " captioner, " + m_impl->info.dataset; }

CellGrid CaptionModel::cellGrid() const { return {m_impl->config.grid, m_impl->config.scorer, ""}; }

std::string CaptionModel::summary() const {
    const auto& c = m_impl->config;
    return "Show-Attend-Tell captioner: " + std::to_string(c.imageSize) + "x" + std::to_string(c.imageSize) +
           " RGB input, " + std::to_string(c.grid) + "x" + std::to_string(c.grid) + " annotations of " +
           std::to_string(c.featureDim) + " (" + c.encoder + " encoder" + (c.cellPositions ? ", cell positions" : "") +
           "), LSTM " + std::to_string(c.hidden) + ", " + c.scorer + " scorer, " +
           std::to_string(c.vocabulary.size()) + " words, up to " + std::to_string(c.maxLength - 2) + " words";
}

Result<Trace> CaptionModel::trace(const Image& image, const std::string& ruleSpec, std::uint64_t seed,
                                  const std::string& imageId, const std::optional<GroundTruth>& truth) {
    auto& m = *m_impl;
    auto input = modelInput(image, m.config.imageSize, m.config.inChannels, m.device);
    if (!input) return Error{input.error()};
    // ksample:K: K sampled captions, the most frequent one reported (its first run's trace).
    int kSample = 0;
    std::string spec = ruleSpec;
    if (isRule(ruleSpec, RuleKind::KSample)) {
        auto parsed = parseSelectionRule(ruleSpec);
        if (!parsed) return Error{parsed.error()};
        if (parsed->k < 1 || parsed->k > kMaxKSample) return Error{"ksample needs 1 <= K <= 10000, got " + ruleSpec};
        kSample = int(parsed->k);
        spec = "sample";
    }
    auto rule = parseCaptionRule(spec, m.config.mode);
    if (!rule) return Error{rule.error()};
    try {
        torch::NoGradGuard noGrad;
        DecodedCaption caption;
        if (kSample > 0) {
            const auto seeds = runSeeds(seed, kSample);
            auto rng = Rng::perRow(seeds);
            std::vector<std::uint64_t> wordSeeds;
            for (auto s : seeds) wordSeeds.push_back(mixSeed(s, kWordStream, 0));
            auto wordRng = Rng::perRow(wordSeeds);
            auto captions = decodeImages(m.net, input->expand({kSample, -1, -1, -1}), *rule, rng, true,
                                         m.wordTemperature, &wordRng);
            std::map<std::string, std::pair<int, int>> votes;  // text -> (count, first run)
            for (int i = 0; i < kSample; ++i) {
                auto& v = votes.try_emplace(joinWords(captions[size_t(i)].words), 0, i).first->second;
                ++v.first;
            }
            auto best = std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
                return a.second.first != b.second.first ? a.second.first < b.second.first
                                                        : a.second.second > b.second.second;
            });
            caption = captions[size_t(best->second.second)];
        } else {
            Rng rng(seed);
            Rng wordRng(mixSeed(seed, kWordStream, 0));
            caption = decodeImages(m.net, *input, *rule, rng, true, m.wordTemperature, &wordRng).front();
        }
        Trace t;
        t.modelId = "caption/" + trainingModeName(m.config.mode) + "/" + m.info.dataset;
        t.imageId = imageId;
        t.rule = kSample > 0 ? "ksample:" + std::to_string(kSample) : rule->spec;
        t.seed = seed;
        t.device = m.device.str();
        t.imageWidth = image.width;
        t.imageHeight = image.height;
        t.classNames = m.config.vocabulary;
        const auto objects = groundCaptionWords(caption.words, truthObjects(truth));
        for (std::size_t w = 0; w < caption.attention.size(); ++w) {
            TraceStep step;
            step.grid = GridDistribution{m.config.grid, m.config.grid, caption.attention[w]};
            if (caption.chosen[w] >= 0) step.chosenCells.push_back(caption.chosen[w]);
            step.logProb = caption.logProb[w];
            step.entropy = caption.entropy[w];
            step.outputProbs = caption.wordProbs[w];
            step.token = w < caption.words.size() ? caption.words[w] : "<end>";
            step.wordObject = w < objects.size() ? objects[w] : -1;
            t.steps.push_back(std::move(step));
        }
        if (t.steps.empty()) return Error{"the captioner emitted no step"};
        t.output.text = joinWords(caption.words);
        t.output.probs = t.steps.back().outputProbs;
        t.output.label = -1;
        t.groundTruth = truth;
        return validateTrace(t);
    } catch (const c10::Error& e) {
        return Error{std::string("trace failed: ") + torchErrorLine(e)};
    }
}

namespace {

// The location rule a word forward differentiates: soft or argmax, nothing sampled.
Result<SelectionOptions> differentiableCaptionRule(const std::string& spec, TrainingMode mode) {
    auto rule = parseCaptionRule(spec, mode);
    if (!rule) return Error{rule.error()};
    if (rule->beam > 0 || (rule->location.rule != SelectionRule::Soft && rule->location.rule != SelectionRule::Argmax))
        return Error{"a word's attribution differentiates the captioner under soft or argmax attention, not '" + spec + "'"};
    return rule->location;
}

}  // namespace

Result<std::shared_ptr<GradientForward>> CaptionModel::wordForward(const std::vector<std::string>& words, int step,
                                                                   const std::string& ruleSpec) {
    auto& m = *m_impl;
    const auto& vocabulary = m.config.vocabulary;
    if (step < 0 || step > int(words.size()) || step + 1 >= m.config.maxLength)
        return Error{"word step " + std::to_string(step) + " is past the caption's end: it has " +
                     std::to_string(words.size()) + " steps (0-" + std::to_string(std::max<int>(0, int(words.size()) - 1)) + ")"};
    std::vector<std::int64_t> prefix{kStartToken};
    for (int i = 0; i < step; ++i) {
        const auto at = std::find(vocabulary.begin(), vocabulary.end(), words[size_t(i)]);
        if (at == vocabulary.end()) return Error{"the word '" + words[size_t(i)] + "' is not in the captioner's vocabulary"};
        if (at - vocabulary.begin() == kEndToken) return Error{"word step " + std::to_string(step) + " is past the caption's <end>"};
        prefix.push_back(at - vocabulary.begin());
    }
    prefix.push_back(kEndToken);  // a target that is not <pad>: teacherForced runs every step of the row
    const std::string spec = ruleSpec.empty() ? evaluationRules().front() : ruleSpec;
    if (auto ok = differentiableCaptionRule(spec, m.config.mode); !ok) return Error{ok.error()};
    const auto tokens = torch::tensor(prefix, torch::TensorOptions().dtype(torch::kLong)).to(m.device).unsqueeze(0);
    Impl* impl = &m;
    // Logits at `step` and the encoder's grid they come from, in one graph.
    auto run = [impl, tokens, step](const torch::Tensor& images, const std::string& name) -> GridForward {
        auto rule = differentiableCaptionRule(name, impl->config.mode);
        if (!rule) TORCH_CHECK(false, rule.error());
        GridForward out;
        const auto annotations = impl->net->encode(images, &out.grid);
        Rng unused(0);
        // The deferred weight gradients assume a backward pass that reaches the weights; an
        // attribution asks for the pixels' gradient alone.
        struct DeferredOff {  // back as it was on return or exception
            CaptionNetworkImpl& net;
            const bool was = net.deferredWeightGrads();
            explicit DeferredOff(CaptionNetworkImpl& n) : net(n) { net.setDeferredWeightGrads(false); }
            ~DeferredOff() { net.setDeferredWeightGrads(was); }
        } off(*impl->net);
        const auto steps = impl->net->teacherForced(annotations, tokens.expand({images.size(0), -1}), *rule, unused);
        out.logits = steps.wordLogits.select(/*dim=*/0, step);
        return out;
    };
    auto logits = [run](const torch::Tensor& images, const std::string& name) { return run(images, name).logits; };
    return std::shared_ptr<GradientForward>(std::make_shared<FunctionGradientForward>(m.device, spec, logits, run));
}

Result<RunSet> CaptionModel::sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                                        const std::optional<GroundTruth>& truth, int kSample,
                                        const Progress& progress) {
    auto& m = *m_impl;
    auto input = modelInput(image, m.config.imageSize, m.config.inChannels, m.device);
    if (!input) return Error{input.error()};
    const auto sample = parseCaptionRule("sample", m.config.mode);
    const auto objects = truthObjects(truth);  // word hits are scored where the scene's objects are known
    torch::Tensor annotations;
    auto chunk = [&](std::uint64_t firstSeed, int count) -> Result<std::vector<RunRecord>> {
        try {
            torch::NoGradGuard noGrad;
            if (!annotations.defined()) annotations = m.net->encode(*input);  // once for every chunk
            const auto seeds = runSeeds(firstSeed, count);
            auto rng = Rng::perRow(seeds);
            std::vector<std::uint64_t> wordSeeds;
            for (auto s : seeds) wordSeeds.push_back(mixSeed(s, kWordStream, 0));
            auto wordRng = Rng::perRow(wordSeeds);
            const auto decoded = m.net->decode(annotations, sample->location, rng, m.wordTemperature, &wordRng, count);
            const auto tokens = decoded.tokens.to(torch::kCPU).contiguous();
            const auto lengths = decoded.lengths.to(torch::kCPU);
            const auto cells = decoded.steps.indices.select(2, 0).to(torch::kCPU).contiguous();  // [T, N]
            const auto entropy = decoded.steps.entropy.to(torch::kCPU, torch::kFloat).contiguous();
            const auto locationLogProb = decoded.steps.logProb.to(torch::kCPU, torch::kDouble).contiguous();
            const auto wordLogProb = decoded.wordLogProb.sum(0).to(torch::kCPU, torch::kDouble);
            const auto T = tokens.size(1);
            std::vector<RunRecord> records(static_cast<std::size_t>(count));
            for (int i = 0; i < count; ++i) {
                auto& r = records[size_t(i)];
                r.seed = seeds[size_t(i)];
                std::vector<std::int64_t> row(tokens[i].data_ptr<std::int64_t>(), tokens[i].data_ptr<std::int64_t>() + T);
                const auto words = decodeCaption(row, m.config.vocabulary);
                r.text = joinWords(words);
                const auto steps = std::min<std::int64_t>(T, lengths[i].item<std::int64_t>() + 1);
                for (std::int64_t t = 0; t < steps; ++t) {
                    r.cells.push_back(int(cells[t][i].item<std::int64_t>()));
                    r.entropy.push_back(entropy[t][i].item<float>());
                    r.logProb += locationLogProb[t][i].item<double>();
                }
                r.confidence = float(std::exp(wordLogProb[i].item<double>()));  // p(words | locations)
                if (truth && !truth->references.empty()) r.correct = isReference(r.text, truth) ? 1 : 0;
                if (!objects.empty()) r.wordHits = captionWordHits(words, objects, r.cells, m.config.grid, image.width);
            }
            return records;
        } catch (const c10::Error& e) {
            return Error{std::string("runs failed: ") + torchErrorLine(e)};
        }
    };
    auto set = collectRuns(*this, image, runs, seed, imageId, truth, kSample, "soft", chunk, progress);
    if (!set) return set;
    // The outputs are the distinct captions: the deterministic one first, then by first run.
    RunSet s = std::move(set).value();
    std::map<std::string, int> ids;
    std::vector<std::string> names;
    auto id = [&](const std::string& text) {
        auto [it, inserted] = ids.try_emplace(text, int(names.size()));
        if (inserted) names.push_back(text);
        return it->second;
    };
    s.deterministic.output.label = id(s.deterministic.output.text);
    for (auto& r : s.runs) r.label = id(r.text);
    s.classNames = names;
    s.outputKind = OutputKind::Caption;
    s.truth.reset();
    if (truth) s.references = truth->references;
    if (!objects.empty()) {  // the deterministic caption's cells: chosen, or the argmax of soft attention
        std::vector<int> cells;
        for (const auto& step : s.deterministic.steps) cells.push_back(attendedCell(step));
        s.deterministicWordHits =
            captionWordHits(splitWords(s.deterministic.output.text), objects, cells, m.config.grid, image.width);
    }
    return s;
}

Result<EvalReport> CaptionModel::evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                          std::int64_t limit, std::uint64_t seed, const Progress& progress,
                                         const Shard& shard) {
    auto& m = *m_impl;
    constexpr std::int64_t kBatch = 100;
    auto opening = openCaptionEvaluation(dataset, split, m.config.imageSize, m.config.inChannels, rules.size(), limit,
                                         kBatch, shard);
    if (!opening) return Error{opening.error()};
    std::vector<CaptionRule> parsed;
    for (const auto& r : rules) {
        auto p = parseCaptionRule(r, m.config.mode);
        if (!p) return Error{p.error()};
        parsed.push_back(*p);
    }
    const auto& info = dataset.info();
    CaptionEvalOpening begun = std::move(opening).value();
    const auto range = begun.range;
    const std::int64_t n = range.size(), total = begun.total;
    const auto start = begun.start;
    EvalReport& report = begun.report;
    std::vector<CaptionScoreAccumulator> scores;
    for (const auto& p : parsed) scores.emplace_back(p.spec, m.config.grid, m.config.imageSize);
    std::map<std::string, int> ids;
    try {
        torch::NoGradGuard noGrad;
        for (std::int64_t first = range.begin; first < range.end; first += kBatch) {
            std::vector<std::int64_t> idx;
            for (std::int64_t i = first; i < std::min(range.end, first + kBatch); ++i) idx.push_back(i);
            std::vector<Sample> samples;
            const auto batch = makeBatch(dataset, split, idx, m.device, &samples);
            report.labels.insert(report.labels.end(), idx.size(), -1);
            // Image i draws what its trace with evaluationSeed(seed, i) draws, words included.
            std::vector<std::uint64_t> wordSeeds;
            for (const auto i : idx) wordSeeds.push_back(mixSeed(evaluationSeed(seed, i), kWordStream, 0));
            for (std::size_t r = 0; r < parsed.size(); ++r) {
                auto rng = evaluationRng(seed, first, idx.size());
                auto wordRng = Rng::perRow(wordSeeds);
                const auto captions = decodeImages(m.net, batch.images, parsed[r], rng, false, m.wordTemperature,
                                                   &wordRng);
                for (std::size_t i = 0; i < captions.size(); ++i) {
                    const bool exact = scores[r].add(samples[i], captions[i]);
                    const auto text = joinWords(captions[i].words);
                    auto [it, inserted] = ids.try_emplace(text, int(report.outputNames.size()));
                    if (inserted) report.outputNames.push_back(text);
                    report.predictions[r].push_back(it->second);
                    report.correct[r].push_back(exact ? 1 : 0);
                }
            }
            if (progress && !progress(double(first - range.begin + std::int64_t(idx.size())) / double(n)))
                return Error{"evaluation cancelled"};
        }
    } catch (const c10::Error& e) {
        return Error{std::string("evaluation failed: ") + torchErrorLine(e)};
    }
    report.dataset = info.name;
    report.split = splitName(split);
    report.shard = shard;
    report.begin = range.begin;
    report.total = total;
    report.trainedMode = m.config.mode;
    for (std::size_t r = 0; r < parsed.size(); ++r) {
        const auto s = scores[r].scores();
        report.rules.push_back(wilsonAccuracy(parsed[r].spec, s.exact, n));
        report.captions.push_back(captionRuleReport(s));
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

}  // namespace saccade
