#pragma once
// ScriptTranslator: a user's own TorchScript sequence-to-sequence model behind the Translator
// interface, as docs/model-contract.md ("Translators") describes it. The module has a method
// translate(source: Tensor, max_len: int) -> Dict[str, Tensor] taking int64 ids [N, S] and
// returning `tokens` [N, T] (int64) and either `alignment` [N, T, S] or `cross_attentions`
// [N, layers, heads, T, S] (each row a distribution over the source), optionally
// `self_attentions` [N, layers, heads, S, S] (the encoder's); attributes source_vocabulary and
// target_vocabulary: List[str], optionally end_token: int (a target id) and unknown_token: int
// (the source id unknown tokens read as; else the entry "<unk>" where there is one). An optional
// align(source: Tensor, target: Tensor) -> Dict[str, Tensor] gives the alignment of the decoder
// fed a reference (the AER on pairs). Text is split into characters when every source entry
// (entries like "<pad>" aside) is one character, else on whitespace. Checked on load (the
// signatures, the vocabularies, a probe on one source token) and on every call; each failure is
// one line. Not thread-safe: one caller at a time.

#include <memory>
#include <string>
#include <vector>

#include "models/translator.h"

namespace saccade {

struct ScriptArchive;  // models/script/script_archive.h

class ScriptTranslator : public Translator {
public:
    ~ScriptTranslator() override;
    static Result<std::shared_ptr<ScriptTranslator>> load(const ScriptArchive& archive);
    /// Whether an opened module is a translator: it has a `translate` method.
    static bool isTranslator(const ScriptArchive& archive);
    /// Whether the top module of the TorchScript file at `path` defines a method `translate` (its
    /// code read, not its weights; a submodule's method of that name does not count).
    static bool fileDefinesTranslate(const std::string& path);

    const std::string& path() const override;
    std::string describe() const override;
    std::string taskName() const override { return ""; }
    const SeqTask* task() const override { return nullptr; }
    SeqTokenKind tokenKind() const override;
    SeqTokens tokenize(const std::string& text) const override;
    std::vector<std::string> splitTarget(const std::string& text) const override;
    bool writes(const std::string& token) const override;
    /// "translate": the model's own decoding.
    std::vector<std::string> rules() const override { return {"translate"}; }
    Result<SeqTranslation> translate(const std::string& text, const std::string& rule = "", std::uint64_t seed = 1) const override;
    bool canForceTarget() const override;
    Result<std::vector<std::vector<double>>> forcedAlignment(const std::vector<std::string>& source,
                                                             const std::vector<std::string>& target, const std::string& rule,
                                                             std::uint64_t seed) const override;
    Result<SeqEvalReport> evaluate(const SeqEvalOptions& options, const SeqEvalProgress& onProgress = {}) const override;

private:
    ScriptTranslator();
    struct Impl;
    std::unique_ptr<Impl> m;
};

}  // namespace saccade
