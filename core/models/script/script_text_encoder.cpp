#include "models/script/script_text_encoder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <torch/script.h>
#include <torch/torch.h>

#include "data/wordpiece.h"
#include "models/script/script_archive.h"
#include "models/script/script_methods.h"
#include "models/script/script_outputs.h"  // kScriptSumTolerance
#include "models/text_encoder_forward.h"
#include "models/translation_maps.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {

constexpr const char* kEncodeSignature = "encode(source: Tensor) -> Dict[str, Tensor]";
constexpr const char* kEmbedSignature = "embed(source: Tensor) -> Tensor";
constexpr const char* kEncodeEmbeddedSignature = "encode_embedded(embedded: Tensor) -> Dict[str, Tensor]";

/// What encode returned for one sentence, checked: the embedding [E] and the attentions [L, H, S, S].
struct Encoded {
    torch::Tensor embedding, attentions;
};

bool returnsTensor(const torch::jit::Method& method) {
    const auto& schema = method.function().getSchema();
    return schema.arguments().size() == 2 && schema.arguments()[1].type()->kind() == c10::TypeKind::TensorType &&
           schema.returns().size() == 1 && schema.returns()[0].type()->kind() == c10::TypeKind::TensorType;
}

Result<std::string> readText(const torch::jit::Module& module, const std::string& name) {
    if (!module.hasattr(name) || !module.attr(name).isString())
        return Error{"it has no attribute " + name + ": str"};
    return module.attr(name).toStringRef();
}

// The id of a special piece: the int attribute `attribute`, else the entry `entry`, else -1.
Result<int> specialId(const torch::jit::Module& module, const std::string& attribute, const std::string& entry,
                      const std::map<std::string, long>& ids, std::size_t size) {
    auto id = readTokenId(module, attribute, size);
    if (!id) return Error{id.error()};
    if (*id >= 0) return *id;
    const auto it = ids.find(entry);
    return it == ids.end() ? -1 : int(it->second);
}

// The `dict` of a call on S pieces, checked: embedding [1, E] and self_attentions [1, L, H, S, S].
Result<Encoded> readEncoded(const c10::Dict<c10::IValue, c10::IValue>& dict, std::int64_t S, const std::string& where) {
    auto get = [&](const char* key) -> torch::Tensor {
        auto it = dict.find(key);
        return it == dict.end() || !it->value().isTensor() ? torch::Tensor() : it->value().toTensor();
    };
    const auto embedding = get("embedding"), self = get("self_attentions");
    if (!embedding.defined()) return Error{where + " returned no 'embedding' [N, E]"};
    if (!self.defined()) return Error{where + " returned no 'self_attentions' [N, layers, heads, S, S]"};
    if (!embedding.is_floating_point() || embedding.dim() != 2 || embedding.size(0) != 1 || embedding.size(1) < 1)
        return Error{where + "'s 'embedding' must be floating point [N, E] with N = 1, not " + dtypeName(embedding) + " " +
                     c10::str(embedding.sizes())};
    if (!self.is_floating_point() || self.dim() != 5 || self.size(0) != 1 || self.size(1) < 1 || self.size(2) < 1 ||
        self.size(3) != S || self.size(4) != S)
        return Error{where + "'s 'self_attentions' must be floating point [N, layers, heads, S, S] with N = 1 and S = " +
                     std::to_string(S) + ", not " + dtypeName(self) + " " + c10::str(self.sizes())};
    Encoded e{embedding[0].detach().to(torch::kCPU, torch::kDouble), self[0].detach().to(torch::kCPU, torch::kDouble)};
    if (!torch::isfinite(e.embedding).all().item<bool>()) return Error{where + "'s 'embedding' holds NaN or inf"};
    if (!torch::isfinite(e.attentions).all().item<bool>()) return Error{where + "'s 'self_attentions' hold NaN or inf"};
    if ((e.attentions < 0).any().item<bool>()) return Error{where + "'s 'self_attentions' hold a negative weight"};
    const auto sums = e.attentions.sum(-1).flatten();
    const auto worst = (sums - 1).abs().argmax().item<std::int64_t>();
    if (std::abs(sums[worst].item<double>() - 1) > kScriptSumTolerance) {
        std::ostringstream s;
        s << where << "'s 'self_attentions': a row sums to " << sums[worst].item<double>() << ", not 1 (within "
          << kScriptSumTolerance << ")";
        return Error{s.str()};
    }
    return e;
}

}  // namespace

struct ScriptTextEncoder::Impl : TextEncoderForward {
    std::string path;
    mutable torch::jit::Module module;
    torch::Device device{torch::kCPU};
    std::vector<std::string> vocabulary;
    std::map<std::string, long> ids;
    bool wordpiece = true;
    WordPieceRules rules;
    int start = -1, end = -1, unknown = -1, pad = -1;
    std::int64_t layers = 0, heads = 0, embeddingSize = 0;
    std::int64_t maxPieces = 0;  ///< the model's max_pieces (its positions), 0: not declared
    bool canEmbed = false;

    Result<c10::Dict<c10::IValue, c10::IValue>> call(const std::string& method, std::vector<c10::IValue> args,
                                                     bool grad = false) const {
        c10::IValue out;
        try {
            torch::AutoGradMode mode(grad);
            out = module.get_method(method)(std::move(args));
        } catch (const std::exception& e) {
            return Error{"model '" + path + "': " + method + " failed: " + modelsOwnMessage(e)};
        }
        if (!out.isGenericDict()) return Error{"model '" + path + "': " + method + " must return a Dict[str, Tensor], not " + out.tagKind()};
        return out.toGenericDict();
    }

    SeqTokens pieces(const std::string& text) const {
        SeqTokens out;
        if (wordpiece) {
            auto cut = wordPieces(text, ids, rules);
            out.tokens = std::move(cut.pieces);
            out.unknown = std::move(cut.unknownWords);
        } else {
            for (auto& p : splitText(text, SeqTokenKind::Words)) {
                if (!ids.count(p) && std::find(out.unknown.begin(), out.unknown.end(), p) == out.unknown.end()) out.unknown.push_back(p);
                out.tokens.push_back(ids.count(p) || unknown < 0 ? p : vocabulary[size_t(unknown)]);
            }
        }
        if (start >= 0) out.tokens.insert(out.tokens.begin(), vocabulary[size_t(start)]);
        if (end >= 0) out.tokens.push_back(vocabulary[size_t(end)]);
        return out;
    }

    // The ids [1, S] of a text's pieces. Errors: no pieces, too many, a piece outside the vocabulary.
    Result<std::pair<SeqTokens, torch::Tensor>> idsOf(const std::string& text) const {
        auto p = pieces(text);
        const std::size_t specials = std::size_t(start >= 0) + std::size_t(end >= 0);
        if (p.tokens.size() <= specials) return Error{"nothing to encode: the text holds no pieces"};
        const std::size_t most = maxPieces > 0 ? std::min<std::size_t>(kMaxSeqTokens, std::size_t(maxPieces)) : kMaxSeqTokens;
        if (p.tokens.size() > most)
            return Error{"the text holds " + std::to_string(p.tokens.size()) + " pieces; at most " + std::to_string(most) +
                         " are read" + (most < kMaxSeqTokens ? " (the model's max_pieces)" : "")};
        std::vector<std::int64_t> out;
        for (const auto& t : p.tokens) {
            const auto it = ids.find(t);
            if (it == ids.end())
                return Error{"'" + t + "' is not in the model's vocabulary, and it has no unknown_token (or \"[UNK]\" entry)"};
            out.push_back(it->second);
        }
        auto tensor = torch::tensor(out, torch::kInt64).view({1, -1}).to(device);
        return std::make_pair(std::move(p), tensor);
    }

    Result<Encoded> encode(const torch::Tensor& source) const {
        auto dict = call("encode", {source});
        if (!dict) return Error{dict.error()};
        return readEncoded(*dict, source.size(1), "model '" + path + "': encode");
    }

    Result<TextEncoderInput> prepare(const std::string& text) override {
        auto p = idsOf(text);
        if (!p) return Error{p.error()};
        TextEncoderInput in;
        in.pieces = p->first.tokens;
        torch::Tensor rows;
        try {
            torch::NoGradGuard noGrad;
            rows = module.get_method("embed")({p->second}).toTensor();
        } catch (const std::exception& e) {
            return Error{"model '" + path + "': embed failed: " + modelsOwnMessage(e)};
        }
        const auto S = p->second.size(1);
        if (!rows.is_floating_point() || rows.dim() != 3 || rows.size(0) != 1 || rows.size(1) != S)
            return Error{"model '" + path + "': embed must return floating point rows [N, S, D] with N = 1 and S = " +
                         std::to_string(S) + ", not " + dtypeName(rows) + " " + c10::str(rows.sizes())};
        in.rows = rows.detach();
        in.padRows = torch::zeros_like(in.rows);
        if (pad >= 0) {
            torch::Tensor padRow;
            try {
                torch::NoGradGuard noGrad;
                padRow = module.get_method("embed")({torch::full({1, 1}, pad, p->second.options())}).toTensor();
            } catch (const std::exception& e) {
                return Error{"model '" + path + "': embed failed on the padding piece: " + modelsOwnMessage(e)};
            }
            if (!padRow.is_floating_point() || padRow.dim() != 3 || padRow.size(0) != 1 || padRow.size(1) != 1 ||
                padRow.size(2) != rows.size(2))
                return Error{"model '" + path + "': embed gave the padding piece " + dtypeName(padRow) + " " +
                             c10::str(padRow.sizes()) + ", not [1, 1, " + std::to_string(rows.size(2)) + "]"};
            in.padRows.copy_(padRow.detach().expand_as(in.rows));
        }
        in.hasPad = pad >= 0;
        if (start >= 0) in.padRows[0][0].copy_(in.rows[0][0]);
        if (end >= 0) in.padRows[0][S - 1].copy_(in.rows[0][S - 1]);
        return in;
    }

    // embed then encode_embedded gives what encode gives (the attribution differentiates the one
    // and shows the other): on the probe, the embeddings within 1e-4 of their largest value.
    Result<Unit> checkEmbedAgrees(const std::vector<std::int64_t>& probe, const Encoded& e) {
        torch::Tensor viaRows;
        try {
            torch::NoGradGuard noGrad;
            const auto ids = torch::tensor(probe, torch::kInt64).view({1, -1}).to(device);
            const auto rows = module.get_method("embed")({ids}).toTensor();
            TORCH_CHECK(rows.dim() == 3 && rows.size(0) == 1 && rows.size(1) == ids.size(1), "embed must return rows [N, S, D], not ",
                        rows.sizes());
            viaRows = sentence(rows)[0].detach().to(torch::kCPU, torch::kDouble);
        } catch (const std::exception& ex) {
            return Error{"embed then encode_embedded failed on a probe: " + modelsOwnMessage(ex)};
        }
        const double scale = std::max(e.embedding.abs().max().item<double>(), 1e-12);
        const double off = (viaRows - e.embedding).abs().max().item<double>() / scale;
        if (off > 1e-4)
            return Error{"embed then encode_embedded gives another embedding than encode (off by " + std::to_string(off) +
                         " of its largest value): the attribution would explain another model"};
        return Unit{};
    }

    torch::Tensor sentence(const torch::Tensor& rows) override {
        auto out = module.get_method("encode_embedded")({rows});
        const auto dict = out.toGenericDict();
        const auto it = dict.find("embedding");
        TORCH_CHECK(it != dict.end() && it->value().isTensor(), "encode_embedded returned no 'embedding'");
        const auto e = it->value().toTensor();
        TORCH_CHECK(e.is_floating_point() && e.dim() == 2 && e.size(0) == rows.size(0) && e.size(1) == embeddingSize,
                    "encode_embedded's 'embedding' must be floating point [N, E] with N = ", rows.size(0), " and E = ",
                    embeddingSize, " (encode's), not ", e.sizes());
        TORCH_CHECK(torch::isfinite(e).all().item<bool>(), "encode_embedded's 'embedding' holds NaN or inf");
        return e;
    }
};

ScriptTextEncoder::ScriptTextEncoder() : m(std::make_unique<Impl>()) {}
ScriptTextEncoder::~ScriptTextEncoder() = default;

bool ScriptTextEncoder::isTextEncoder(const ScriptArchive& archive) {
    // An image model's helper named encode (forward calls self.encode) is no text encoder: the
    // contract's returns a dict, beside a vocabulary.
    const auto encode = archive.module.find_method("encode");
    return encode && methodFits(*encode, {c10::TypeKind::TensorType}) && archive.module.hasattr("vocabulary");
}

bool ScriptTextEncoder::fileDefinesEncode(const std::string& path) {
    const auto code = topClassCode(path);
    const auto def = code.find("def encode(self");
    if (def == std::string::npos || code.find("\n  vocabulary : List[str]") == std::string::npos) return false;
    const auto colon = code.find(":\n", def);  // the end of the signature
    return colon != std::string::npos && code.substr(def, colon - def).find("-> Dict[str, Tensor]") != std::string::npos;
}

namespace {

// The tokenizer attributes: "wordpiece" with lower_case, or "pieces".
Result<Unit> readTokenizer(const torch::jit::Module& module, bool& wordpiece, bool& lowerCase) {
    auto tokenizer = readText(module, "tokenizer");
    if (!tokenizer) return Error{tokenizer.error() + " (\"wordpiece\" or \"pieces\")"};
    if (*tokenizer != "wordpiece" && *tokenizer != "pieces")
        return Error{"its tokenizer is '" + *tokenizer + "'; Saccade reads \"wordpiece\" (BERT's rules) or \"pieces\" "
                     "(text typed as pieces)"};
    wordpiece = *tokenizer == "wordpiece";
    if (!wordpiece) return Unit{};
    if (!module.hasattr("lower_case") || !module.attr("lower_case").isBool())
        return Error{"its tokenizer is wordpiece, and it has no attribute lower_case: bool (whether text is lower-cased and "
                     "stripped of accents first)"};
    lowerCase = module.attr("lower_case").toBool();
    return Unit{};
}

// The optional int attribute max_pieces (the model's positions): at least 3.
Result<Unit> readMaxPieces(const torch::jit::Module& module, std::int64_t& out) {
    if (!module.hasattr("max_pieces")) return Unit{};
    const auto v = module.attr("max_pieces");
    if (!v.isInt() || v.toInt() < 3) return Error{"its max_pieces must be an int of at least 3"};
    out = v.toInt();
    return Unit{};
}

}  // namespace

Result<std::shared_ptr<ScriptTextEncoder>> ScriptTextEncoder::load(const ScriptArchive& archive) {
    const std::string where = "model '" + archive.path + "': ";
    auto encode = archive.module.find_method("encode");
    if (!encode) return Error{where + "it has no encode method (" + kEncodeSignature + ")"};
    if (!methodFits(*encode, {c10::TypeKind::TensorType}))
        return Error{where + "its encode method must be " + kEncodeSignature + ", not " + schemaText(*encode)};
    std::shared_ptr<ScriptTextEncoder> model(new ScriptTextEncoder());
    auto& m = *model->m;
    m.path = archive.path;
    m.module = archive.module;
    m.device = archive.device;
    auto embed = m.module.find_method("embed");
    auto embedded = m.module.find_method("encode_embedded");
    if (embed.has_value() != embedded.has_value())
        return Error{where + "it has " + (embed ? "embed but no encode_embedded" : "encode_embedded but no embed") +
                     "; attribution needs both (" + kEmbedSignature + ", " + kEncodeEmbeddedSignature + ")"};
    if (embed && !returnsTensor(*embed))
        return Error{where + "its embed method must be " + kEmbedSignature + ", not " + schemaText(*embed)};
    if (embedded && !methodFits(*embedded, {c10::TypeKind::TensorType}))
        return Error{where + "its encode_embedded method must be " + kEncodeEmbeddedSignature + ", not " + schemaText(*embedded)};
    m.canEmbed = embed.has_value();
    auto vocabulary = readStringList(m.module, "vocabulary");
    if (!vocabulary) return Error{where + vocabulary.error()};
    m.vocabulary = *vocabulary;
    for (std::size_t i = 0; i < m.vocabulary.size(); ++i) m.ids.emplace(m.vocabulary[i], long(i));
    if (auto ok = readTokenizer(m.module, m.wordpiece, m.rules.lowerCase); !ok) return Error{where + ok.error()};
    const std::pair<int*, std::pair<const char*, const char*>> specials[] = {{&m.start, {"start_token", "[CLS]"}},
                                                                             {&m.end, {"end_token", "[SEP]"}},
                                                                             {&m.unknown, {"unknown_token", "[UNK]"}},
                                                                             {&m.pad, {"pad_token", "[PAD]"}}};
    for (const auto& [slot, names] : specials) {
        auto id = specialId(m.module, names.first, names.second, m.ids, m.vocabulary.size());
        if (!id) return Error{where + id.error()};
        *slot = *id;
    }
    if (m.wordpiece && m.unknown < 0)
        return Error{where + "its tokenizer is wordpiece, and it has no unknown piece (an \"[UNK]\" entry or unknown_token)"};
    if (m.unknown >= 0) m.rules.unknown = m.vocabulary[size_t(m.unknown)];
    // The probe: the start and end pieces around the first ordinary one.
    std::int64_t first = 0;
    while (first + 1 < std::int64_t(m.vocabulary.size()) && (first == m.start || first == m.end || first == m.pad)) ++first;
    std::vector<std::int64_t> probe;
    if (m.start >= 0) probe.push_back(m.start);
    probe.push_back(first);
    if (m.end >= 0) probe.push_back(m.end);
    auto e = m.encode(torch::tensor(probe, torch::kInt64).view({1, -1}).to(m.device));
    if (!e) return Error{e.error()};
    m.layers = e->attentions.size(0);
    m.heads = e->attentions.size(1);
    m.embeddingSize = e->embedding.size(0);
    if (auto ok = readMaxPieces(m.module, m.maxPieces); !ok) return Error{where + ok.error()};
    if (m.canEmbed)
        if (auto ok = m.checkEmbedAgrees(probe, *e); !ok) return Error{where + ok.error()};
    return model;
}

const std::string& ScriptTextEncoder::path() const { return m->path; }
std::int64_t ScriptTextEncoder::embeddingSize() const { return m->embeddingSize; }
TextEncoderForward* ScriptTextEncoder::encoderForward() const { return m->canEmbed ? m.get() : nullptr; }
SeqTokens ScriptTextEncoder::tokenize(const std::string& text) const { return m->pieces(text); }

std::string ScriptTextEncoder::describe() const {
    return "TorchScript text encoder, " + std::to_string(m->layers) + " layers x " + std::to_string(m->heads) + " heads, " +
           std::to_string(m->embeddingSize) + "-d embedding";
}

Result<SeqTranslation> ScriptTextEncoder::translate(const std::string& text, const std::string& rule, std::uint64_t seed) const {
    if (!rule.empty() && !isRule(rule, RuleKind::Encode))
        return Error{"a text encoder has one rule, encode (its own forward), not '" + rule + "'"};
    auto p = m->idsOf(text);
    if (!p) return Error{p.error()};
    auto e = m->encode(p->second);
    if (!e) return Error{e.error()};
    SeqTranslation out;
    out.rule = "encode";
    out.seed = seed;
    out.source = p->first.tokens;
    out.unknown = p->first.unknown;
    out.tokens = out.source;  // one row of self-attention per piece
    out.finished = true;
    out.referenceError = "a text encoder writes no text to check";
    const auto& a = e->attentions;
    out.alignment = matrixRows(a[a.size(0) - 1].mean(0));  // the last layer's mean over heads
    out.chosen.assign(out.tokens.size(), -1);
    out.topWords.assign(out.tokens.size(), {});
    for (const auto& row : out.alignment) {
        double h = 0;
        for (double w : row) h -= w > 0 ? w * std::log(w) : 0;
        out.entropy.push_back(h);
    }
    addTranslationMaps(out, torch::Tensor(), a, torch::Tensor());
    const auto emb = e->embedding.contiguous();
    out.embedding.assign(emb.data_ptr<double>(), emb.data_ptr<double>() + emb.numel());
    return out;
}

}  // namespace saccade
