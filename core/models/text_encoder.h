#pragma once
// A model that reads text and writes no text but one vector, the sentence embedding (an imported
// BERT-style encoder such as all-MiniLM-L6-v2; docs/model-contract.md, "Text encoders"). It is a
// Translator so that the Sequences page, translate and render open it like any model that reads
// text: its "translation" of a text is its self-attention over the text's pieces (every layer and
// head, their means and the rollout), one row per piece, and the sentence embedding. What needs
// written text (evaluation on pairs, attribution of output tokens, a teacher-forced alignment) says
// so in one line. analysis/attribution/text_similarity.h attributes the similarity of two
// sentences' embeddings to their pieces. Plain types: the GUI includes this header.

#include <cstdint>
#include <string>
#include <vector>

#include "models/translator.h"

namespace saccade {

class TextEncoderForward;  // models/text_encoder_forward.h (an engine header)

class TextEncoder : public Translator {
public:
    /// The sentence embedding's size.
    virtual std::int64_t embeddingSize() const = 0;
    /// Its forward from the pieces' embedding rows, for attribution; null when the file gives
    /// none (no embed and encode_embedded methods). Valid while the encoder lives.
    virtual TextEncoderForward* encoderForward() const = 0;

    const TextEncoder* asTextEncoder() const override { return this; }
    std::string taskName() const override { return ""; }
    const SeqTask* task() const override { return nullptr; }
    bool writes(const std::string&) const override { return false; }
    /// "encode": its one forward.
    std::vector<std::string> rules() const override { return {"encode"}; }
    bool canForceTarget() const override { return false; }
    Result<std::vector<std::vector<double>>> forcedAlignment(const std::vector<std::string>&, const std::vector<std::string>&,
                                                             const std::string&, std::uint64_t) const override;
    Result<SeqEvalReport> evaluate(const SeqEvalOptions& options, const SeqEvalProgress& onProgress = {}) const override;
};

/// "MODEL is a text encoder: it writes no text, so WHAT": the one line of every view that needs
/// written text, naming what it offers instead.
std::string writesNoTextLine(const Translator& model, const std::string& what);

}  // namespace saccade
