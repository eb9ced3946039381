#pragma once
// ScriptTextEncoder: a user's own TorchScript text encoder behind the TextEncoder interface, as
// docs/model-contract.md ("Text encoders") describes it. The module has a method
// encode(source: Tensor) -> Dict[str, Tensor] taking int64 ids [N, S] (the start and end pieces
// included) and returning `embedding` [N, E] (the sentence embedding) and `self_attentions`
// [N, layers, heads, S, S] (each row a distribution over the pieces); attributes vocabulary:
// List[str] (the pieces in id order), tokenizer: str ("wordpiece": BERT's rules, data/wordpiece.h;
// "pieces": the text is pieces already, split on whitespace) and, for wordpiece, lower_case: bool.
// The pieces "[CLS]", "[SEP]", "[UNK]" and "[PAD]" are found by name, or given as the int
// attributes start_token, end_token, unknown_token and pad_token. Optional, together:
// embed(source: Tensor) -> Tensor (the rows [N, S, D] the encoder reads) and
// encode_embedded(embedded: Tensor) -> Dict[str, Tensor] (what encode gives from rows in their
// place), for attribution. Checked on load (signatures, vocabulary, a probe on one piece) and on
// every call; each failure is one line. Not thread-safe: one caller at a time.

#include <memory>
#include <string>

#include "models/text_encoder.h"

namespace saccade {

struct ScriptArchive;  // models/script/script_archive.h

class ScriptTextEncoder : public TextEncoder {
public:
    ~ScriptTextEncoder() override;
    static Result<std::shared_ptr<ScriptTextEncoder>> load(const ScriptArchive& archive);
    /// Whether an opened module is a text encoder: it has an `encode` method.
    static bool isTextEncoder(const ScriptArchive& archive);
    /// Whether the top module of the TorchScript file at `path` defines a method `encode` (its
    /// code read, not its weights).
    static bool fileDefinesEncode(const std::string& path);

    const std::string& path() const override;
    std::string describe() const override;
    SeqTokenKind tokenKind() const override { return SeqTokenKind::Words; }
    /// The pieces the model reads, its start and end pieces included; unknown: the words read as
    /// the unknown piece.
    SeqTokens tokenize(const std::string& text) const override;
    Result<SeqTranslation> translate(const std::string& text, const std::string& rule = "", std::uint64_t seed = 1) const override;
    std::int64_t embeddingSize() const override;
    TextEncoderForward* encoderForward() const override;

private:
    ScriptTextEncoder();
    struct Impl;
    std::unique_ptr<Impl> m;
};

}  // namespace saccade
