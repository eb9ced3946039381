#include "models/script/script_captioner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>


#include <nlohmann/json.hpp>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "common/words.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "metrics/bleu.h"
#include "models/batched_eval.h"
#include "models/model_input.h"
#include "models/script/script_archive.h"
#include "models/script/script_methods.h"
#include "trace/rule_kind.h"
#include "models/script/script_outputs.h"  // kScriptSumTolerance

namespace saccade {

namespace {

constexpr const char* kCaptionMethod = "caption";
constexpr const char* kCaptionSampledMethod = "caption_sampled";
constexpr const char* kCaptionSignature = "caption(image: Tensor, max_len: int) -> Dict[str, Tensor]";
constexpr const char* kCaptionSampledSignature =
    "caption_sampled(image: Tensor, max_len: int, seed: int) -> Dict[str, Tensor]";

/// A captioner's checked outputs for N images, on the CPU: tokens [N, T] int64, attention
/// [N, T, h, w] float32, chosen [N, T] int64 or undefined.
struct CaptionOutputs {
    torch::Tensor tokens, attention, chosen;
};

// Reads what `method` returned for `batch` images against a vocabulary of `words` words.
Result<CaptionOutputs> readCaptionOutputs(const c10::IValue& value, std::int64_t batch, std::int64_t words,
                                          std::int64_t maxLen, const std::string& method) {
    if (!value.isGenericDict()) return Error{method + " must return a Dict[str, Tensor], not " + value.tagKind()};
    const auto dict = value.toGenericDict();
    auto get = [&](const char* key) -> torch::Tensor {
        auto it = dict.find(key);
        if (it == dict.end() || !it->value().isTensor()) return {};
        return it->value().toTensor();
    };
    CaptionOutputs o;
    auto tokens = get("tokens");
    auto attention = get("attention");
    auto chosen = get("chosen");
    if (!tokens.defined()) return Error{method + " returned no 'tokens' [N, T] (int64)"};
    if (!attention.defined()) return Error{method + " returned no 'attention' [N, T, h, w]"};
    if (tokens.scalar_type() != torch::kInt64) return Error{method + "'s 'tokens' must be int64, not " + dtypeName(tokens)};
    if (tokens.dim() != 2 || tokens.size(0) != batch || tokens.size(1) < 1)
        return Error{method + "'s 'tokens' must be [N, T] with N = " + std::to_string(batch) + " and T >= 1, not " +
                     c10::str(tokens.sizes())};
    const auto T = tokens.size(1);
    if (T > maxLen)  // the contract: at most max_len words
        return Error{method + " answered " + std::to_string(T) + " words when asked for at most max_len = " + std::to_string(maxLen)};
    if (!attention.is_floating_point()) return Error{method + "'s 'attention' must be floating point, not " + dtypeName(attention)};
    if (attention.dim() != 4 || attention.size(0) != batch || attention.size(1) != T || attention.size(2) < 1 ||
        attention.size(3) < 1)
        return Error{method + "'s 'attention' must be [N, T, h, w] = [" + std::to_string(batch) + ", " + std::to_string(T) +
                     ", h, w] (T from 'tokens'), not " + c10::str(attention.sizes())};
    if (attention.size(2) > kMaxGridSide || attention.size(3) > kMaxGridSide)
        return Error{method + "'s 'attention' grid is " + std::to_string(attention.size(2)) + "x" +
                     std::to_string(attention.size(3)) + "; Saccade shows grids of at most " + std::to_string(kMaxGridSide) +
                     " cells a side"};
    o.tokens = tokens.to(torch::kCPU).contiguous();
    o.attention = attention.to(torch::kCPU, torch::kFloat32).contiguous();
    const auto lowest = o.tokens.min().item<std::int64_t>(), highest = o.tokens.max().item<std::int64_t>();
    if (lowest < 0 || highest >= words)
        return Error{method + "'s 'tokens' hold id " + std::to_string(lowest < 0 ? lowest : highest) +
                     ", outside the vocabulary of " + std::to_string(words) + " words"};
    if (!torch::isfinite(o.attention).all().item<bool>()) return Error{method + "'s 'attention' holds NaN or inf"};
    if ((o.attention < 0).any().item<bool>()) return Error{method + "'s 'attention' holds a negative weight"};
    const auto sums = o.attention.flatten(2).sum(-1);  // [N, T]
    const auto off = (sums - 1).abs();
    const auto worst = off.flatten().argmax().item<std::int64_t>();
    if (off.flatten()[worst].item<double>() > kScriptSumTolerance) {
        std::ostringstream s;
        s << method << "'s 'attention' of image " << worst / T << ", step " << worst % T << " sums to "
          << sums.flatten()[worst].item<double>() << ", not 1 (within " << kScriptSumTolerance << ")";
        return Error{s.str()};
    }
    if (chosen.defined()) {
        const auto cells = o.attention.size(2) * o.attention.size(3);
        if (chosen.is_floating_point() || chosen.scalar_type() == torch::kBool)
            return Error{method + "'s 'chosen' must be integer cells, not " + dtypeName(chosen)};
        if (chosen.dim() != 2 || chosen.size(0) != batch || chosen.size(1) != T)
            return Error{method + "'s 'chosen' must be [N, T] like 'tokens', not " + c10::str(chosen.sizes())};
        o.chosen = chosen.to(torch::kCPU, torch::kInt64).contiguous();
        const auto lo = o.chosen.min().item<std::int64_t>(), hi = o.chosen.max().item<std::int64_t>();
        if (lo < 0 || hi >= cells)
            return Error{method + "'s 'chosen' holds cell " + std::to_string(lo < 0 ? lo : hi) + ", outside the " +
                         std::to_string(o.attention.size(2)) + "x" + std::to_string(o.attention.size(3)) + " grid"};
    }
    return o;
}

}  // namespace

struct ScriptCaptioner::Impl {
    std::string path;
    torch::jit::Module module;
    torch::Device device{torch::kCPU};
    CheckpointInfo info;
    ScriptSettings settings;
    std::vector<std::string> vocabulary;
    int endToken = -1;
    int size = 0, channels = 1, steps = 0, gridRows = 0, gridCols = 0;
    torch::Tensor mean, std;  // [1, C, 1, 1] or undefined
    bool sampled = false;
    bool lastCallRaised = false;

    // One checked call of caption (sampled: caption_sampled with `seed`, the process-wide
    // generator's state put back afterwards) on images in [0, 1].
    Result<CaptionOutputs> call(const torch::Tensor& images, bool useSampled, std::uint64_t seed) {
        const std::string method = useSampled ? kCaptionSampledMethod : kCaptionMethod;
        std::vector<c10::IValue> args{std::int64_t(kScriptCaptionMaxLen)};
        if (useSampled) args.push_back(static_cast<std::int64_t>(seed & 0x7fffffffffffffffULL));
        auto called = callScriptMethod(module, path, method, images, mean, std, args, useSampled, lastCallRaised);
        if (!called) return Error{called.error()};
        const c10::IValue& out = *called;
        try {
            auto read = readCaptionOutputs(out, images.size(0), std::int64_t(vocabulary.size()), kScriptCaptionMaxLen, method);
            if (!read) return Error{"model '" + path + "': " + read.error()};
            if (gridRows > 0 && (read->attention.size(2) != gridRows || read->attention.size(3) != gridCols))
                return Error{"model '" + path + "': " + method + "'s 'attention' grid changed from " + std::to_string(gridRows) +
                             "x" + std::to_string(gridCols) + " to " + std::to_string(read->attention.size(2)) + "x" +
                             std::to_string(read->attention.size(3))};
            return read;
        } catch (const c10::Error& e) {
            return Error{"model '" + path + "': " + method + "'s outputs cannot be read: " + firstLine(e.what_without_backtrace())};
        }
    }

    Result<Unit> probe() {
        auto shape = probeInputShape(settings, path, device, mean, std, [this](const torch::Tensor& grey) -> Result<Unit> {
            auto out = call(grey, false, 0);
            if (!out) return Error{out.error()};
            steps = int(out->tokens.size(1));
            gridRows = int(out->attention.size(2));
            gridCols = int(out->attention.size(3));
            return Unit{};
        }, lastCallRaised);
        if (!shape) return Error{shape.error()};
        std::tie(channels, size) = *shape;
        return Unit{};
    }

    // The words of image `i` up to and including end_token: their ids.
    std::vector<std::int64_t> ids(const CaptionOutputs& o, std::int64_t i) const {
        std::vector<std::int64_t> out;
        for (std::int64_t t = 0; t < o.tokens.size(1); ++t) {
            out.push_back(o.tokens[i][t].item<std::int64_t>());
            if (out.back() == endToken) break;
        }
        return out;
    }

    // The caption's words without end_token.
    std::vector<std::string> words(const std::vector<std::int64_t>& ids) const {
        std::vector<std::string> out;
        for (auto id : ids)
            if (id != endToken) out.push_back(vocabulary[size_t(id)]);
        return out;
    }
};

ScriptCaptioner::ScriptCaptioner() : m_impl(std::make_unique<Impl>()) {}
ScriptCaptioner::~ScriptCaptioner() = default;

bool ScriptCaptioner::isCaptioner(const ScriptArchive& archive) {
    return archive.module.find_method(kCaptionMethod).has_value();
}

Result<std::shared_ptr<ScriptCaptioner>> ScriptCaptioner::load(const std::string& path, const std::string& device,
                                                               const InputOverrides& input) {
    auto archive = openScriptArchive(path, device);
    if (!archive) return Error{archive.error()};
    return load(*archive, input);
}

Result<std::shared_ptr<ScriptCaptioner>> ScriptCaptioner::load(const ScriptArchive& archive, const InputOverrides& input) {
    const auto& path = archive.path;
    const std::string where = "model '" + path + "': ";
    auto method = archive.module.find_method(kCaptionMethod);
    if (!method) return Error{notScriptModelText(path) + ": it has no caption method"};
    if (!methodFits(*method, {c10::TypeKind::TensorType, c10::TypeKind::IntType}))
        return Error{where + "its caption method must be " + kCaptionSignature + ", not " + schemaText(*method)};
    std::shared_ptr<ScriptCaptioner> model(new ScriptCaptioner());
    auto& m = *model->m_impl;
    m.path = path;
    m.device = archive.device;
    m.module = archive.module;
    if (auto sampled = m.module.find_method(kCaptionSampledMethod)) {
        if (!methodFits(*sampled, {c10::TypeKind::TensorType, c10::TypeKind::IntType, c10::TypeKind::IntType}))
            return Error{where + "its caption_sampled method must be " + kCaptionSampledSignature + ", not " +
                         schemaText(*sampled)};
        m.sampled = true;
    }
    auto vocabulary = readStringList(m.module, "vocabulary");
    if (!vocabulary) return Error{where + vocabulary.error()};
    m.vocabulary = *vocabulary;
    auto end = readTokenId(m.module, "end_token", m.vocabulary.size());
    if (!end) return Error{where + end.error()};
    m.endToken = *end;
    auto settings = readScriptSettings(m.module, archive.extraJson);
    if (!settings) return Error{where + settings.error()};
    auto effective = effectiveSettings(*settings, input);
    if (!effective) return Error{where + effective.error()};
    m.settings = *effective;
    if (!m.settings.dataset.empty() && !datasetShape(m.settings.dataset))
        return Error{where + "its dataset '" + m.settings.dataset + "' is not one of Saccade's datasets (see saccade-cli data list)"};
    if (auto probed = m.probe(); !probed) return Error{probed.error()};
    if (m.sampled) {
        torch::jit::GraphOptimizerEnabledGuard unoptimised(false);
        auto out = m.call(torch::full({1, m.channels, m.size, m.size}, 0.5, torch::TensorOptions().device(m.device)), true, 1);
        if (!out) return Error{out.error()};
    }
    const auto file = std::filesystem::path(path).filename().string();
    m.info.modelType = "torchscript";
    m.info.dataset = m.settings.dataset;
    m.info.weightsCrc32 = crc32Hex(archive.bytes);
    m.info.configJson = nlohmann::json{{"file", file},
                                       {"form", "captioner"},
                                       {"input_size", m.size},
                                       {"channels", m.channels},
                                       {"vocabulary", m.vocabulary.size()},
                                       {"end_token", m.endToken},
                                       {"grid", {m.gridRows, m.gridCols}},
                                       {"caption_sampled", m.sampled}}
                            .dump();
    m.info.command = "imported TorchScript captioner (" + file + ")";
    return model;
}

bool ScriptCaptioner::hasSampledCaption() const { return m_impl->sampled; }
int ScriptCaptioner::endToken() const { return m_impl->endToken; }
const CheckpointInfo& ScriptCaptioner::info() const { return m_impl->info; }
std::string ScriptCaptioner::deviceName() const { return m_impl->device.str(); }
std::vector<std::string> ScriptCaptioner::classNames() const { return m_impl->vocabulary; }
int ScriptCaptioner::imageSize() const { return m_impl->size; }
int ScriptCaptioner::channels() const { return m_impl->channels; }
int ScriptCaptioner::steps() const { return m_impl->steps; }

ImageFit ScriptCaptioner::declaredFit() const {
    const auto& m = *m_impl;
    return {m.settings.resize > 0 ? m.settings.resize : m.size, m.size, m.size};
}

std::string ScriptCaptioner::preprocessing() const {
    const auto& st = m_impl->settings;
    return describeFit(imageFit()) + "; normalised: " + describeNormalisation(st.mean, st.std);
}

std::vector<std::string> ScriptCaptioner::evaluationRules() const {
    if (m_impl->sampled) return {"caption", "sample"};
    return {"caption"};
}

RuleMenu ScriptCaptioner::ruleMenu() const { return {evaluationRules(), {}}; }

std::string ScriptCaptioner::displayName() const { return "imported TorchScript captioner"; }

CellGrid ScriptCaptioner::cellGrid() const {
    // A square grid is a grid of cells the views can draw; another shape has none of its own.
    return {m_impl->gridRows == m_impl->gridCols ? m_impl->gridRows : 0, "imported", ""};
}

std::string ScriptCaptioner::summary() const {
    const auto& m = *m_impl;
    return "imported TorchScript captioner " + std::filesystem::path(m.path).filename().string() + ": " +
           std::to_string(m.size) + "x" + std::to_string(m.size) + "x" + std::to_string(m.channels) + " input, " +
           std::to_string(m.vocabulary.size()) + " words" +
           (m.endToken >= 0 ? " (end '" + m.vocabulary[size_t(m.endToken)] + "')" : std::string()) + ", up to " +
           std::to_string(kScriptCaptionMaxLen) + " words over a " + std::to_string(m.gridRows) + "x" +
           std::to_string(m.gridCols) + " grid" + (m.sampled ? ", caption_sampled" : "");
}

namespace {

Result<bool> sampledRule(const std::string& rule, bool sampled) {
    if (isRule(rule, RuleKind::Caption)) return false;
    if (isRule(rule, RuleKind::Sample)) {
        if (!sampled)
            return Error{"'sample' needs caption_sampled(image, max_len, seed), which this captioner lacks (see docs/model-contract.md)"};
        return true;
    }
    return Error{"'" + rule + "' is not a rule of this imported captioner (use caption" +
                 std::string(sampled ? " or sample" : "; it has no caption_sampled for sample") + ")"};
}

}  // namespace

Result<Trace> ScriptCaptioner::trace(const Image& image, const std::string& rule, std::uint64_t seed,
                                     const std::string& imageId, const std::optional<GroundTruth>& truth) {
    auto& m = *m_impl;
    auto sample = sampledRule(rule, m.sampled);
    if (!sample) return Error{sample.error()};
    auto input = modelInput(image, m.size, m.channels, m.device);
    if (!input) return Error{input.error()};
    try {
        auto out = m.call(*input, *sample, seed);
        if (!out) return Error{out.error()};
        Trace t;
        t.modelId = "torchscript/" + std::filesystem::path(m.path).filename().string();
        t.imageId = imageId;
        t.rule = rule;
        t.seed = seed;
        t.device = m.device.str();
        t.imageWidth = image.width;
        t.imageHeight = image.height;
        t.classNames = m.vocabulary;
        const auto ids = m.ids(*out, 0);
        const int rows = int(out->attention.size(2)), cols = int(out->attention.size(3));
        for (std::size_t s = 0; s < ids.size(); ++s) {
            TraceStep step;
            step.grid = GridDistribution{rows, cols, toFloatVector(out->attention[0][std::int64_t(s)].flatten())};
            step.entropy = entropyNats(step.grid->probs);
            if (out->chosen.defined()) {
                const int cell = int(out->chosen[0][std::int64_t(s)].item<std::int64_t>());
                step.chosenCells.push_back(cell);
                step.logProb = std::log(std::max(1e-30, double(step.grid->probs[size_t(cell)])));
            }
            step.token = m.vocabulary[size_t(ids[s])];
            step.outputProbs.assign(m.vocabulary.size(), 0.0f);
            step.outputProbs[size_t(ids[s])] = 1.0f;
            t.steps.push_back(std::move(step));
        }
        t.output.text = joinWords(m.words(ids));
        t.output.probs = t.steps.back().outputProbs;
        t.output.label = -1;
        t.groundTruth = truth;
        return validateTrace(t);
    } catch (const c10::Error& e) {
        return Error{std::string("trace failed: ") + firstLine(e.what_without_backtrace())};
    }
}

Result<RunSet> ScriptCaptioner::sampleRuns(const Image&, int, std::uint64_t, const std::string&,
                                           const std::optional<GroundTruth>&, int, const Progress&) {
    return Error{"an imported captioner has no stochastic runs (its caption is what caption() returns)"};
}

Result<EvalReport> ScriptCaptioner::evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                             std::int64_t limit, std::uint64_t seed, const Progress& progress,
                                             const Shard& shard) {
    auto& m = *m_impl;
    constexpr std::int64_t kBatch = 100;
    auto opening = openCaptionEvaluation(dataset, split, m.size, m.channels, rules.size(), limit, kBatch, shard);
    if (!opening) return Error{opening.error()};
    std::vector<bool> sampledOf;
    for (const auto& rule : rules) {
        auto s = sampledRule(rule, m.sampled);
        if (!s) return Error{s.error()};
        sampledOf.push_back(*s);
    }
    const auto& info = dataset.info();
    CaptionEvalOpening begun = std::move(opening).value();
    const auto range = begun.range;
    const std::int64_t n = range.size(), total = begun.total;
    const auto start = begun.start;
    EvalReport& report = begun.report;
    std::vector<std::vector<std::vector<std::string>>> candidates(rules.size());
    std::vector<std::vector<std::vector<std::vector<std::string>>>> references(rules.size());
    std::vector<std::int64_t> exact(rules.size(), 0);
    std::vector<ObjectNaming> naming(rules.size());
    std::map<std::string, int> ids;
    try {
        for (std::int64_t first = range.begin; first < range.end; first += kBatch) {
            std::vector<std::int64_t> idx;
            for (std::int64_t i = first; i < std::min(range.end, first + kBatch); ++i) idx.push_back(i);
            std::vector<Sample> samples;
            const auto batch = makeBatch(dataset, split, idx, m.device, &samples);
            report.labels.insert(report.labels.end(), idx.size(), -1);
            for (std::size_t r = 0; r < rules.size(); ++r) {
                std::vector<std::vector<std::string>> captions;
                if (!sampledOf[r]) {
                    auto out = m.call(batch.images, false, 0);
                    if (!out) return Error{out.error()};
                    for (std::size_t j = 0; j < idx.size(); ++j) captions.push_back(m.words(m.ids(*out, std::int64_t(j))));
                } else {
                    // Image i draws with evaluationSeed(seed, i), as its own trace does.
                    for (std::size_t j = 0; j < idx.size(); ++j) {
                        auto out = m.call(batch.images.narrow(0, std::int64_t(j), 1), true, evaluationSeed(seed, idx[j]));
                        if (!out) return Error{out.error()};
                        captions.push_back(m.words(m.ids(*out, 0)));
                    }
                }
                for (std::size_t j = 0; j < captions.size(); ++j) {
                    auto refs = samples[j].references;
                    if (refs.empty()) refs.push_back(samples[j].captionWords);
                    const bool hit = exactMatch(captions[j], refs);
                    exact[r] += hit;
                    const auto text = joinWords(captions[j]);
                    auto [it, inserted] = ids.try_emplace(text, int(report.outputNames.size()));
                    if (inserted) report.outputNames.push_back(text);
                    report.predictions[r].push_back(it->second);
                    report.correct[r].push_back(hit ? 1 : 0);
                    naming[r].addScene(captions[j], samples[j].objects);  // which objects the caption names
                    candidates[r].push_back(captions[j]);
                    references[r].push_back(std::move(refs));
                }
            }
            if (progress && !progress(double(first - range.begin + std::int64_t(idx.size())) / double(n)))
                return Error{"evaluation cancelled"};
        }
    } catch (const c10::Error& e) {
        return Error{std::string("evaluation failed: ") + firstLine(e.what_without_backtrace())};
    }
    report.dataset = info.name;
    report.split = splitName(split);
    report.shard = shard;
    report.begin = range.begin;
    report.total = total;
    report.trainedMode = TrainingMode::Imported;
    for (std::size_t r = 0; r < rules.size(); ++r) {
        const auto scores = captionScores(rules[r], corpusBleu(candidates[r], references[r]), n, exact[r], AttentionCorrectness{},
                                          naming[r]);
        report.rules.push_back(wilsonAccuracy(rules[r], exact[r], n));
        report.captions.push_back(captionRuleReport(scores));
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

Result<std::shared_ptr<GradientForward>> ScriptCaptioner::wordForward(const std::vector<std::string>&, int,
                                                                      const std::string&) {
    return Error{"an imported captioner's caption() returns its words and maps but no score per word, so no word "
                 "can be attributed (the contract would need each step's word logits)"};
}

}  // namespace saccade
