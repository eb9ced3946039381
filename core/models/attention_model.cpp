#include "models/attention_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attention/selection.h"
#include "common/parse.h"
#include "common/runtime.h"
#include "io/shard_json.h"
#include "models/model_family.h"
#include "models/model_loading.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {
// The evaluation rules a model runs itself, not through a selection rule: a RAM's mean and random,
// an import's forward and caption, a transformer's attention and rollout.
bool isModelOwnRule(const std::string& spec) {
    const auto kind = ruleKindOf(spec);
    return kind == RuleKind::Mean || kind == RuleKind::Random || kind == RuleKind::Forward ||
           kind == RuleKind::Attention || kind == RuleKind::Rollout || kind == RuleKind::Caption;
}
}  // namespace

Result<std::vector<std::string>> parseEvalRules(const std::string& list) {
    std::vector<std::string> rules;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        std::string spec = item;
        if (item.rfind("beam", 0) == 0) {
            // beam (K = 3) or beam:K with K in 1..100; "beamfoo" is not a rule.
            Result<std::int64_t> k = Error{""};
            if (item == "beam") k = std::int64_t{3};
            else if (item.rfind("beam:", 0) == 0) k = parseInteger(item.substr(5), "K", 1, 100);
            if (!k) return Error{"'" + item + "' is not a beam rule (use beam:K with K in 1..100)"};
            spec = "beam:" + std::to_string(*k);
        } else if (item.rfind("head:", 0) == 0) {
            // A transformer's head (imported or native); the model checks K against its heads.
            auto k = parseInteger(item.substr(5), "head", 0, 4095);
            if (!k) return Error{"'" + item + "': " + k.error()};
            spec = "head:" + std::to_string(*k);
        } else if (!isModelOwnRule(item)) {
            auto parsed = parseSelectionRule(item);
            if (!parsed) return Error{parsed.error() + " (evaluation rules: soft, sample, argmax, mean, random, ksample:K, gumbel:TAU, forward, attention, caption)"};
            if (parsed->rule == SelectionRule::TopK)
                return Error{"topk is not an evaluation rule: the models read one place a step"};
            spec = selectionRuleSpec(*parsed);
        }
        // A rule listed twice would be measured twice with different draws: say so instead.
        if (std::find(rules.begin(), rules.end(), spec) != rules.end())
            return Error{"rule '" + item + "' is listed twice"};
        rules.push_back(spec);
    }
    if (rules.empty()) return Error{"no evaluation rules given"};
    return rules;
}

CaptionRuleReport captionRuleReport(const CaptionScores& s) {
    CaptionRuleReport c;
    c.rule = s.rule;
    for (int k = 0; k < 4; ++k) c.bleu[k] = s.bleu.bleu[k];
    c.exactMatch = s.exactMatch;
    auto entry = [&](const std::string& name, const AttentionCorrectness::Entry& e) {
        c.attention.push_back({name, e.words ? e.massSum.value() / double(e.words) : 0.0,
                               e.words ? double(e.hits) / double(e.words) : 0.0, e.words});
    };
    for (const char* cls : {"size", "colour", "shape", "relation"}) entry(cls, s.correctness.total({cls}));
    entry("objects", s.correctness.total(objectWordClasses()));
    for (const auto& [size, count] : s.naming.bySize) {
        const auto words = s.correctness.total({objectSizeKey(size)});
        c.bySize.push_back({size, words.words ? words.massSum.value() / double(words.words) : 0.0,
                            words.words ? double(words.hits) / double(words.words) : 0.0, words.words, words.hits,
                            count.named, count.objects});
    }
    c.counts = s;
    return c;
}

namespace {

/// What merging a captioner's shards needs: the counts behind every figure of every rule.
nlohmann::json captionCounts(const EvalReport& r) {
    nlohmann::json partial = nlohmann::json::object();
    for (const auto& rule : r.captions) {
        const auto& s = rule.counts;
        nlohmann::json classes = nlohmann::json::object();
        for (const auto& [name, e] : s.correctness.byClass)
            classes[name] = {{"mass_units", e.massSum.units()}, {"hits", e.hits}, {"words", e.words}};
        nlohmann::json named = nlohmann::json::object();
        for (const auto& [size, count] : s.naming.bySize) named[size] = {{"named", count.named}, {"objects", count.objects}};
        partial[rule.rule] = {{"bleu_matches", s.bleu.matches},
                              {"bleu_totals", s.bleu.totals},
                              {"candidate_length", s.bleu.candidateLength},
                              {"reference_length", s.bleu.referenceLength},
                              {"images", s.images},
                              {"exact", s.exact},
                              {"classes", classes},
                              {"named", named}};
    }
    return partial;
}

/// A captioner rule's figures per object size; a figure that was not measured is null.
nlohmann::json objectSizeJson(const CaptionRuleReport& c) {
    const auto measured = [](bool yes, double v) { return yes ? nlohmann::json(v) : nlohmann::json(nullptr); };
    const auto interval = [](std::int64_t k, std::int64_t n) {
        if (n == 0) return nlohmann::json(nullptr);
        const auto w = wilsonAccuracy("", k, n);
        return nlohmann::json::array({w.low, w.high});
    };
    nlohmann::json bySize = nlohmann::json::object();
    for (const auto& z : c.bySize)
        bySize[z.size] = {{"mass", measured(z.words > 0, z.mass)},
                          {"hit_rate", measured(z.words > 0, z.hitRate)},
                          {"hit_rate_ci95", interval(z.hits, z.words)},
                          {"words", z.words},
                          {"named", z.named},
                          {"objects", z.objects},
                          {"named_rate", measured(z.objects > 0, double(z.named) / double(std::max<std::int64_t>(1, z.objects)))},
                          {"named_rate_ci95", interval(z.named, z.objects)}};
    return bySize;
}

}  // namespace

std::string evalReportToJson(const EvalReport& r, int indent) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& a : r.rules)
        rules.push_back({{"rule", a.rule}, {"accuracy", a.accuracy}, {"ci95", {a.low, a.high}},
                         {"correct", a.correct}, {"n", a.n}});
    nlohmann::json j{{"dataset", r.dataset}, {"split", r.split}, {"trained_mode", trainingModeName(r.trainedMode)},
                     {"output_kind", outputKindName(r.outputKind)}, {"rules", rules}, {"seconds", r.seconds}};
    if (!r.captions.empty()) {
        // One object per rule, and the figures of the first (deterministic) rule at the top level.
        nlohmann::json byRule = nlohmann::json::object();
        for (const auto& c : r.captions) {
            nlohmann::json correctness = nlohmann::json::object();
            for (const auto& a : c.attention)
                correctness[a.wordClass] = {{"mass", a.mass}, {"hit_rate", a.hitRate}, {"words", a.words}};
            byRule[c.rule] = {{"bleu1", c.bleu[0]}, {"bleu2", c.bleu[1]}, {"bleu3", c.bleu[2]}, {"bleu4", c.bleu[3]},
                              {"exact_match", c.exactMatch}, {"attention_correctness", correctness},
                              {"by_object_size", objectSizeJson(c)}};
        }
        j["by_rule"] = byRule;
        for (const char* key : {"bleu1", "bleu2", "bleu3", "bleu4", "exact_match", "attention_correctness", "by_object_size"})
            j[key] = byRule[r.captions.front().rule][key];
        j["headline_rule"] = r.captions.front().rule;
    }
    if (r.shard.active()) {
        j["shard"] = shardHeader("eval", r.shard, r.begin, r.begin + (r.rules.empty() ? 0 : r.rules.front().n), r.total,
                                 r.fingerprint);
        if (!r.captions.empty()) j["caption_counts"] = captionCounts(r);
    }
    return j.dump(indent);
}

Result<std::vector<std::vector<float>>> AttentionModel::outputProbs(const std::vector<Image>& images,
                                                                    const std::string& rule, std::uint64_t seed) {
    std::vector<std::vector<float>> probs;
    probs.reserve(images.size());
    for (const Image& image : images) {
        auto t = trace(image, rule, seed, "batch");
        if (!t) return Error{t.error()};
        probs.push_back(std::move(t->output.probs));
    }
    return probs;
}

Result<RunSet> collectRuns(AttentionModel& model, const Image& image, int runs, std::uint64_t seed,
                           const std::string& imageId, const std::optional<GroundTruth>& truth, int kSample,
                           const std::string& softRule, const RunChunk& chunk, const Progress& progress) {
    constexpr int kMaxRuns = 10000, kChunk = 1000;
    if (runs < 1 || runs > kMaxRuns) return Error{"the number of runs must be 1.." + std::to_string(kMaxRuns)};
    if (kSample < 1 || kSample > kMaxRuns) return Error{"ksample needs 1 <= K <= " + std::to_string(kMaxRuns)};
    const auto start = std::chrono::steady_clock::now();
    RunSet set;
    auto deterministic = model.trace(image, model.deterministicRule(), seed, imageId, truth);
    if (!deterministic) return Error{deterministic.error()};
    set.deterministic = std::move(deterministic).value();
    set.modelId = set.deterministic.modelId;
    set.imageId = imageId;
    set.trainedMode = model.trainedMode();
    set.deterministicRule = model.deterministicRule();
    set.seed = seed;
    set.imageWidth = image.width;
    set.imageHeight = image.height;
    set.steps = model.steps();
    if (const auto& grid = set.deterministic.steps.front().grid) {
        set.gridRows = grid->rows;
        set.gridCols = grid->cols;
    }
    set.classNames = model.classNames();
    if (truth && truth->label >= 0) set.truth = truth->label;
    set.runs.reserve(size_t(runs));
    for (int first = 0; first < runs; first += kChunk) {
        auto records = chunk(runSeed(seed, size_t(first)), std::min(kChunk, runs - first));
        if (!records) return Error{records.error()};
        for (auto& r : *records) set.runs.push_back(std::move(r));
        if (progress && !progress(double(set.runs.size()) / runs)) return Error{"the runs were cancelled"};
    }
    if (!softRule.empty()) {
        auto soft = model.trace(image, softRule, seed, imageId, truth);
        if (!soft) return Error{soft.error()};
        set.soft = std::move(soft).value();
    }
    auto k = model.trace(image, "ksample:" + std::to_string(kSample), seed, imageId, truth);
    if (!k) return Error{k.error()};
    set.ksample = std::move(k).value();
    set.kSampleK = kSample;
    set.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return set;
}

namespace {
// "patch, ram, caption, seq and vit models".
std::string knownFamilies() {
    const auto families = modelFamilies();
    std::string list;
    for (std::size_t i = 0; i < families.size(); ++i)
        list += (i == 0 ? "" : i + 1 == families.size() ? " and " : ", ") + families[i]->name;
    return list + " models";
}

Result<std::shared_ptr<AttentionModel>> openAttentionModel(const std::string& path, const std::string& device,
                                                           const InputOverrides& input) {
    // A Saccade checkpoint has its sidecar beside it; anything else is opened as TorchScript.
    if (isScriptImport(path)) {
        for (const ModelFamily* f : modelFamilies())
            if (f->opensImports) return f->openWithInput ? f->openWithInput(path, device, input) : f->open(path, device);
        return Error{"'" + path + "' has no Saccade sidecar, and this build opens no imported models"};
    }
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    const ModelFamily* family = findFamily(info->modelType);
    if (!family) return Error{"checkpoint '" + path + "' holds a '" + info->modelType + "' model; this version knows " + knownFamilies()};
    if (!family->open) return Error{"checkpoint '" + path + "' holds " + family->noun + ", which " + family->openElsewhere};
    if (family->openWithInput) return family->openWithInput(path, device, input);
    if (!input.mean.empty())
        return Error{"--mean and --std apply to imported TorchScript models; a Saccade checkpoint normalises its input itself"};
    auto model = family->open(path, device);
    if (!model || !input.any()) return model;
    const int side = (*model)->imageSize();
    if (input.crop && (input.crop->first != side || input.crop->second != side))
        return Error{"checkpoint '" + path + "' takes " + std::to_string(side) + "x" + std::to_string(side) +
                     " images: its centre crop must be " + std::to_string(side)};
    auto fit = (*model)->imageFit();
    if (input.resize) fit.resize = *input.resize;
    if (auto ok = checkImageFit(fit); !ok) return Error{"checkpoint '" + path + "': " + ok.error()};
    (*model)->setImageFit(fit);
    return model;
}
}  // namespace

Result<std::shared_ptr<AttentionModel>> loadAttentionModel(const std::string& path, const std::string& device,
                                                           const InputOverrides& input) {
    // Said if the program is interrupted: an imported model's forward runs here to check it.
    setActivity("loading the model '" + path + "'");
    auto model = openAttentionModel(path, device, input);
    setActivity(model ? "running the model '" + path + "'" : std::string());
    return model;
}

std::string AttentionModel::trainingRule() const {
    const auto& mode = traitsOf(trainedMode());
    const std::string trained = mode.recorded ? mode.trainingRule : "";
    const auto offered = ruleMenu().rules;
    return !trained.empty() && std::find(offered.begin(), offered.end(), trained) != offered.end() ? trained
                                                                                                  : deterministicRule();
}

std::string AttentionModel::unsampledRule() const {
    const auto offered = ruleMenu().rules;
    const bool soft = trainedMode() == TrainingMode::Soft && std::any_of(offered.begin(), offered.end(), [](const std::string& r) { return isRule(r, RuleKind::Soft); });
    return soft ? "soft" : deterministicRule();
}

}  // namespace saccade
