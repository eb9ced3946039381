#include "models/script/script_translator.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include <torch/script.h>
#include <torch/torch.h>

#include "models/script/script_archive.h"
#include "models/script/script_methods.h"
#include "models/script/script_outputs.h"  // kScriptSumTolerance
#include "models/translation_maps.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {

constexpr const char* kTranslateSignature = "translate(source: Tensor, max_len: int) -> Dict[str, Tensor]";
constexpr const char* kAlignSignature = "align(source: Tensor, target: Tensor) -> Dict[str, Tensor]";

/// What translate or align returned for one sentence, checked: cross [L, H, T, S] (an
/// `alignment` is one layer of one head), encoder [L, H, S, S] or undefined; tokens [T] (translate).
struct TranslatorOutputs {
    torch::Tensor tokens, cross, encoder;
};

bool isSpecial(const std::string& entry) { return entry.size() > 2 && entry.front() == '<' && entry.back() == '>'; }

// Every entry but the specials is one UTF-8 code point.
bool allCharacters(const std::vector<std::string>& vocabulary) {
    for (const auto& e : vocabulary)
        if (!isSpecial(e) && splitText(e, SeqTokenKind::Characters).size() != 1) return false;
    return true;
}

// The first `rows` rows of each [.., rows, cols] matrix of `t` are distributions.
Result<Unit> checkRows(const torch::Tensor& t, std::int64_t rows, const std::string& what) {
    const auto kept = t.narrow(-2, 0, rows);
    if (!torch::isfinite(kept).all().item<bool>()) return Error{what + " holds NaN or inf"};
    if ((kept < 0).any().item<bool>()) return Error{what + " holds a negative weight"};
    const auto off = (kept.sum(-1) - 1).abs().flatten();
    const auto worst = off.argmax().item<std::int64_t>();
    if (off[worst].item<double>() > kScriptSumTolerance) {
        std::ostringstream s;
        s << what << ": a row sums to " << kept.sum(-1).flatten()[worst].item<double>() << ", not 1 (within "
          << kScriptSumTolerance << ")";
        return Error{s.str()};
    }
    return Unit{};
}

// The attention of `dict` for T steps over S source tokens, as [L, H, T, S].
Result<Unit> readAttention(const c10::Dict<c10::IValue, c10::IValue>& dict, std::int64_t T, std::int64_t S,
                           const std::string& method, TranslatorOutputs& o) {
    auto get = [&](const char* key) -> torch::Tensor {
        auto it = dict.find(key);
        return it == dict.end() || !it->value().isTensor() ? torch::Tensor() : it->value().toTensor();
    };
    const auto alignment = get("alignment"), cross = get("cross_attentions"), self = get("self_attentions");
    if (!alignment.defined() && !cross.defined())
        return Error{method + " returned neither 'alignment' [N, T, S] nor 'cross_attentions' [N, layers, heads, T, S]"};
    const auto& a = cross.defined() ? cross : alignment;
    const std::string key = cross.defined() ? "cross_attentions" : "alignment";
    const bool fits = cross.defined() ? a.dim() == 5 && a.size(0) == 1 && a.size(1) >= 1 && a.size(2) >= 1 && a.size(3) >= T && a.size(4) == S
                                      : a.dim() == 3 && a.size(0) == 1 && a.size(1) >= T && a.size(2) == S;
    if (!a.is_floating_point()) return Error{method + "'s '" + key + "' must be floating point, not " + dtypeName(a)};
    if (!fits)
        return Error{method + "'s '" + key + "' must be " + (cross.defined() ? "[N, layers, heads, T, S]" : "[N, T, S]") +
                     " with N = 1, T >= " + std::to_string(T) + " and S = " + std::to_string(S) + ", not " + c10::str(a.sizes())};
    o.cross = (cross.defined() ? a[0] : a[0].unsqueeze(0).unsqueeze(0)).narrow(2, 0, T).to(torch::kCPU, torch::kDouble);
    if (auto ok = checkRows(o.cross, T, method + "'s '" + key + "'"); !ok) return ok;
    if (self.defined()) {
        if (!self.is_floating_point() || self.dim() != 5 || self.size(0) != 1 || self.size(3) != S || self.size(4) != S)
            return Error{method + "'s 'self_attentions' must be floating point [N, layers, heads, S, S] with N = 1 and S = " +
                         std::to_string(S) + ", not " + c10::str(self.sizes())};
        o.encoder = self[0].to(torch::kCPU, torch::kDouble);
        if (auto ok = checkRows(o.encoder, S, method + "'s 'self_attentions'"); !ok) return ok;
    }
    return Unit{};
}

}  // namespace

struct ScriptTranslator::Impl {
    std::string path;
    mutable torch::jit::Module module;
    torch::Device device{torch::kCPU};
    std::vector<std::string> source, target;
    std::map<std::string, std::int64_t> sourceIds, targetIds;
    int endToken = -1, unknownToken = -1;
    bool sourceCharacters = false, targetCharacters = false, canAlign = false;
    std::int64_t layers = 0, heads = 0;

    Result<c10::Dict<c10::IValue, c10::IValue>> call(const std::string& method, std::vector<c10::IValue> args) const {
        c10::IValue out;
        try {
            torch::NoGradGuard noGrad;
            out = module.get_method(method)(std::move(args));
        } catch (const std::exception& e) {
            return Error{"model '" + path + "': " + method + " failed: " + modelsOwnMessage(e)};
        }
        if (!out.isGenericDict()) return Error{"model '" + path + "': " + method + " must return a Dict[str, Tensor], not " + out.tagKind()};
        return out.toGenericDict();
    }

    // The ids of `tokens` [1, S]: unknown ones as unknown_token, or an Error without one.
    Result<torch::Tensor> sourceTensor(const std::vector<std::string>& tokens) const {
        std::vector<std::int64_t> ids;
        for (const auto& t : tokens) {
            const auto it = sourceIds.find(t);
            if (it == sourceIds.end() && unknownToken < 0)
                return Error{"'" + t + "' is not in the model's source vocabulary, and it has no unknown_token (or \"<unk>\" entry)"};
            ids.push_back(it == sourceIds.end() ? unknownToken : it->second);
        }
        return torch::tensor(ids, torch::kInt64).view({1, -1}).to(device);
    }

    Result<TranslatorOutputs> translateIds(const torch::Tensor& ids) const {
        const auto S = ids.size(1);
        const auto maxLen = std::min<std::int64_t>(kMaxSeqTokens, 2 * S + 10);
        auto dict = call("translate", {ids, maxLen});
        if (!dict) return Error{dict.error()};
        const std::string where = "model '" + path + "': translate";
        auto it = dict->find("tokens");
        if (it == dict->end() || !it->value().isTensor()) return Error{where + " returned no 'tokens' [N, T] (int64)"};
        auto tokens = it->value().toTensor();
        if (tokens.scalar_type() != torch::kInt64) return Error{where + "'s 'tokens' must be int64, not " + dtypeName(tokens)};
        if (tokens.dim() != 2 || tokens.size(0) != 1 || tokens.size(1) < 1)
            return Error{where + "'s 'tokens' must be [N, T] with N = 1 and T >= 1, not " + c10::str(tokens.sizes())};
        if (tokens.size(1) > maxLen)  // the contract: at most max_len tokens
            return Error{where + " answered " + std::to_string(tokens.size(1)) + " tokens when asked for at most max_len = " +
                         std::to_string(maxLen)};
        TranslatorOutputs o;
        o.tokens = tokens[0].to(torch::kCPU).contiguous();
        const auto lo = o.tokens.min().item<std::int64_t>(), hi = o.tokens.max().item<std::int64_t>();
        if (lo < 0 || hi >= std::int64_t(target.size()))
            return Error{where + "'s 'tokens' hold id " + std::to_string(lo < 0 ? lo : hi) + ", outside the target vocabulary of " +
                         std::to_string(target.size()) + " tokens"};
        std::int64_t T = o.tokens.size(0);
        for (std::int64_t t = 0; t < T && endToken >= 0; ++t)
            if (o.tokens[t].item<std::int64_t>() == endToken) T = t + 1;
        o.tokens = o.tokens.narrow(0, 0, T);
        if (auto ok = readAttention(*dict, T, S, where, o); !ok) return Error{ok.error()};
        return o;
    }
};

ScriptTranslator::ScriptTranslator() : m(std::make_unique<Impl>()) {}
ScriptTranslator::~ScriptTranslator() = default;

bool ScriptTranslator::isTranslator(const ScriptArchive& archive) { return archive.module.find_method("translate").has_value(); }

bool ScriptTranslator::fileDefinesTranslate(const std::string& path) { return topClassDefines(path, "translate"); }

namespace {

std::map<std::string, std::int64_t> idsOf(const std::vector<std::string>& vocabulary) {
    std::map<std::string, std::int64_t> ids;
    for (std::size_t i = 0; i < vocabulary.size(); ++i) ids.emplace(vocabulary[i], std::int64_t(i));
    return ids;
}

}  // namespace

Result<std::shared_ptr<ScriptTranslator>> ScriptTranslator::load(const ScriptArchive& archive) {
    const std::string where = "model '" + archive.path + "': ";
    auto method = archive.module.find_method("translate");
    if (!method) return Error{where + "it has no translate method (" + kTranslateSignature + ")"};
    if (!methodFits(*method, {c10::TypeKind::TensorType, c10::TypeKind::IntType}))
        return Error{where + "its translate method must be " + kTranslateSignature + ", not " + schemaText(*method)};
    std::shared_ptr<ScriptTranslator> model(new ScriptTranslator());
    auto& m = *model->m;
    m.path = archive.path;
    m.module = archive.module;
    m.device = archive.device;
    if (auto align = m.module.find_method("align")) {
        if (!methodFits(*align, {c10::TypeKind::TensorType, c10::TypeKind::TensorType}))
            return Error{where + "its align method must be " + kAlignSignature + ", not " + schemaText(*align)};
        m.canAlign = true;
    }
    auto source = readStringList(m.module, "source_vocabulary");
    if (!source) return Error{where + source.error()};
    auto target = readStringList(m.module, "target_vocabulary");
    if (!target) return Error{where + target.error()};
    m.source = *source;
    m.target = *target;
    m.sourceIds = idsOf(m.source);
    m.targetIds = idsOf(m.target);
    auto end = readTokenId(m.module, "end_token", m.target.size());
    if (!end) return Error{where + end.error()};
    m.endToken = *end;
    auto unknown = readTokenId(m.module, "unknown_token", m.source.size());
    if (!unknown) return Error{where + unknown.error()};
    m.unknownToken = *unknown >= 0 ? *unknown : m.sourceIds.count("<unk>") ? int(m.sourceIds["<unk>"]) : -1;
    m.sourceCharacters = allCharacters(m.source);
    m.targetCharacters = allCharacters(m.target);
    // The probe: one source token that is not a special.
    std::int64_t first = 0;
    while (first + 1 < std::int64_t(m.source.size()) && isSpecial(m.source[size_t(first)])) ++first;
    auto probe = m.translateIds(torch::full({1, 1}, first, torch::TensorOptions().dtype(torch::kInt64).device(m.device)));
    if (!probe) return Error{probe.error()};
    m.layers = probe->cross.size(0);
    m.heads = probe->cross.size(1);
    return model;
}

const std::string& ScriptTranslator::path() const { return m->path; }
SeqTokenKind ScriptTranslator::tokenKind() const { return m->sourceCharacters ? SeqTokenKind::Characters : SeqTokenKind::Words; }
bool ScriptTranslator::canForceTarget() const { return m->canAlign; }

std::string ScriptTranslator::describe() const {
    if (m->layers * m->heads == 1) return "TorchScript, one alignment";
    return "TorchScript, " + std::to_string(m->layers) + " layers x " + std::to_string(m->heads) + " heads";
}

SeqTokens ScriptTranslator::tokenize(const std::string& text) const {
    SeqTokens out;
    out.tokens = splitText(text, tokenKind());
    for (const auto& t : out.tokens)
        if (!m->sourceIds.count(t) && std::find(out.unknown.begin(), out.unknown.end(), t) == out.unknown.end())
            out.unknown.push_back(t);
    return out;
}

Result<SeqTranslation> ScriptTranslator::translate(const std::string& text, const std::string& rule, std::uint64_t seed) const {
    if (!rule.empty() && !isRule(rule, RuleKind::Translate))
        return Error{"an imported translator has one rule, translate (its own decoding), not '" + rule + "'"};
    const auto tokens = tokenize(text);
    if (tokens.tokens.empty()) return Error{"nothing to translate: the text holds no tokens"};
    if (tokens.tokens.size() > kMaxSeqTokens)
        return Error{"the text holds " + std::to_string(tokens.tokens.size()) + " tokens; at most " +
                     std::to_string(kMaxSeqTokens) + " are read"};
    auto ids = m->sourceTensor(tokens.tokens);
    if (!ids) return Error{ids.error()};
    auto o = m->translateIds(*ids);
    if (!o) return Error{o.error()};
    SeqTranslation out;
    out.rule = "translate";
    out.seed = seed;
    out.source = tokens.tokens;
    out.unknown = tokens.unknown;
    out.referenceError = "an imported model has no task of its own to answer with";
    const auto T = o->tokens.size(0);
    std::vector<std::string> words;
    for (std::int64_t t = 0; t < T; ++t) {
        const auto id = o->tokens[t].item<std::int64_t>();
        out.tokens.push_back(m->target[size_t(id)]);
        if (id == m->endToken) out.finished = true;
        else words.push_back(out.tokens.back());
    }
    if (m->endToken < 0) out.finished = true;  // no end token: every step is output
    const auto alignment = o->cross[o->cross.size(0) - 1].mean(0);  // the last layer's mean over heads
    out.alignment = matrixRows(alignment);
    out.chosen.assign(size_t(T), -1);
    out.topWords.assign(size_t(T), {});
    for (const auto& row : out.alignment) {
        double h = 0;
        for (double w : row) h -= w > 0 ? w * std::log(w) : 0;
        out.entropy.push_back(h);
    }
    if (o->cross.size(0) * o->cross.size(1) > 1 || o->encoder.defined()) addTranslationMaps(out, o->cross, o->encoder, {});
    out.output = joinTokens(words, m->targetCharacters ? SeqTokenKind::Characters : SeqTokenKind::Words);
    return out;
}

bool ScriptTranslator::writes(const std::string& token) const { return m->targetIds.count(token) != 0; }

std::vector<std::string> ScriptTranslator::splitTarget(const std::string& text) const {
    return splitText(text, m->targetCharacters ? SeqTokenKind::Characters : SeqTokenKind::Words);
}

Result<std::vector<std::vector<double>>> ScriptTranslator::forcedAlignment(const std::vector<std::string>& source,
                                                                           const std::vector<std::string>& target,
                                                                           const std::string&, std::uint64_t) const {
    if (!m->canAlign) return Error{"model '" + m->path + "' has no align method (" + kAlignSignature + ")"};
    auto ids = m->sourceTensor(source);
    if (!ids) return Error{ids.error()};
    std::vector<std::int64_t> targetIds;
    for (const auto& t : target) {
        const auto it = m->targetIds.find(t);
        if (it == m->targetIds.end()) return Error{"'" + t + "' is not in the model's target vocabulary"};
        targetIds.push_back(it->second);
    }
    auto dict = m->call("align", {*ids, torch::tensor(targetIds, torch::kInt64).view({1, -1}).to(m->device)});
    if (!dict) return Error{dict.error()};
    TranslatorOutputs o;
    const auto T = std::int64_t(target.size());
    if (auto ok = readAttention(*dict, T, ids->size(1), "model '" + m->path + "': align", o); !ok) return Error{ok.error()};
    return matrixRows(o.cross[o.cross.size(0) - 1].mean(0));
}

Result<SeqEvalReport> ScriptTranslator::evaluate(const SeqEvalOptions&, const SeqEvalProgress&) const {
    return Error{"model '" + m->path + "' has no task of its own: evaluate it on a file of pairs (eval --pairs FILE)"};
}

}  // namespace saccade
