#pragma once
// A model that reads text and writes text, attending over the source at every output step: one
// interface for Saccade's own sequence models (models/seq) and imported TorchScript translators
// (models/script), so the Sequences page, translate, render --text and eval open either. Opening
// asks the registry (models/model_family.h), never a family by name. Plain types: the GUI
// includes this header.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/seq_task.h"
#include "trace/seq_translation.h"

namespace saccade {

class SeqGradientForward;  // models/seq_gradient_forward.h (an engine header)
class TextEncoder;         // models/text_encoder.h

struct SeqLengthBucket {
    int length = 0;
    std::int64_t n = 0;
    double exactMatch = 0;
    bool seenInTraining = true;
};

struct SeqEvalReport {
    std::string task, rule, model;
    std::string data = "test";  ///< "test" (the task's split) or the pairs file's path
    std::int64_t n = 0;
    double exactMatch = 0, tokenAccuracy = 0;
    /// Alignment error rate (Och and Ney 2003) of the decoder's attention fed the reference
    /// output: A = the argmax (or chosen) source token of each target token with a gold alignment;
    /// AER = 1 - (|A & sure| + |A & possible|) / (|A| + |sure|). Not measured (aerMeasured false)
    /// when no sentence has a gold alignment.
    double aer = 0;
    bool aerMeasured = true;
    std::int64_t aerSentences = 0;  ///< sentences the AER counts
    std::string aerSource;          ///< how the alignment was obtained (the JSON's aer_definition)
    double entropy = 0;  ///< mean attention entropy per output step, nats
    /// Permutation test: total variation distance between the word distributions with the real
    /// and the shuffled attention weights, over every output step.
    double permutationMedianTv = 0, permutationMeanTv = 0, permutationSmallShare = 0;  ///< share with TV < 0.05
    bool permutationTested = false;
    std::string permutationNote;  ///< why it was not run
    std::vector<SeqLengthBucket> byLength;
    /// Pairs files: source words outside the model's source vocabulary (read as <unk>), the
    /// sentences holding one, and the first few such words.
    std::int64_t unknownSourceWords = 0, sentencesWithUnknown = 0;
    std::vector<std::string> unknownExamples;
    /// Reference tokens outside its output vocabulary (it can never write them), the first few.
    std::int64_t unwritableTargetTokens = 0;
    std::vector<std::string> unwritableExamples;
    double seconds = 0;
};

std::string seqEvalReportToJson(const SeqEvalReport& report);

struct SeqEvalOptions {
    std::int64_t limit = SeqTask::kTestSize;  ///< first N test sentences (or pairs)
    std::string rule;                        ///< default: the model's deterministic rule
    std::uint64_t seed = 1;                  ///< draws of sample and of the permutations
    bool permutation = true;
};

/// Progress of an evaluation; returning false cancels it (an Error).
using SeqEvalProgress = std::function<bool(std::int64_t done, std::int64_t total)>;

/// The most tokens a text (typed, from a pairs file, or an output explained) may hold.
inline constexpr std::size_t kMaxSeqTokens = 200;

class Translator {
public:
    virtual ~Translator() = default;
    virtual const std::string& path() const = 0;
    /// What it is, after its file name on the page: "dates, additive", "TorchScript, 2 layers x 4 heads".
    virtual std::string describe() const = 0;
    /// The task it was trained on ("dates"), or "" for a model without one of Saccade's tasks.
    virtual std::string taskName() const = 0;
    /// The task's references (the correct answer of a typed text) and test split; null without one.
    virtual const SeqTask* task() const = 0;
    /// Characters or words, as the model's source vocabulary reads text.
    virtual SeqTokenKind tokenKind() const = 0;
    /// Source text to tokens; those outside the source vocabulary are listed.
    virtual SeqTokens tokenize(const std::string& text) const = 0;
    /// Target text to tokens, as the model writes them (for references in a pairs file).
    virtual std::vector<std::string> splitTarget(const std::string& text) const;
    /// Whether `token` is in its output vocabulary: one it is not can never be written.
    virtual bool writes(const std::string& token) const = 0;
    /// Rules it translates under, the deterministic one first ("soft", "argmax", "sample").
    virtual std::vector<std::string> rules() const = 0;
    std::string deterministicRule() const { return rules().front(); }
    /// Empty text, more than 200 tokens, an unknown rule: an Error.
    virtual Result<SeqTranslation> translate(const std::string& text, const std::string& rule = "",
                                             std::uint64_t seed = 1) const = 0;
    /// The alignment [target][source] of the decoder fed `target` (teacher forcing), for the AER;
    /// an Error when it fails. Only when canForceTarget().
    virtual bool canForceTarget() const = 0;
    virtual Result<std::vector<std::vector<double>>> forcedAlignment(const std::vector<std::string>& source,
                                                                     const std::vector<std::string>& target,
                                                                     const std::string& rule, std::uint64_t seed) const = 0;
    /// Its task's test split; an Error for a model without a task (evaluate it on pairs).
    virtual Result<SeqEvalReport> evaluate(const SeqEvalOptions& options, const SeqEvalProgress& onProgress = {}) const = 0;

    /// Its decoder along a given target from source embeddings autograd can reach, for attribution
    /// over the source (analysis/seq_attribution.h); null where the model offers none (the default:
    /// an import's contract has no embedding entry). Valid while the translator lives.
    virtual SeqGradientForward* gradientForward() const { return nullptr; }

    /// A text encoder (models/text_encoder.h): it writes no text but a sentence embedding, and its
    /// "translation" is its self-attention over the text's pieces; null (the default) for a model
    /// that writes text.
    virtual const TextEncoder* asTextEncoder() const { return nullptr; }

    /// Tokens back to text (characters joined, words with spaces).
    std::string detokenize(const std::vector<std::string>& tokens) const;
};

/// `text` split into UTF-8 code points (Characters; an invalid byte reads as U+FFFD) or on
/// whitespace (Words).
std::vector<std::string> splitText(const std::string& text, SeqTokenKind kind);

/// Opens `path` as a translator: a Saccade checkpoint of a family that reads text, or an import
/// that is one. Errors name the file and say where an image model opens instead.
Result<std::shared_ptr<const Translator>> openTranslator(const std::string& path, const std::string& device = "auto");

/// True when `path` holds a model that reads text (no weights read): a checkpoint whose sidecar
/// names a family that reads text, or an import whose family finds a translator in it.
bool fileReadsText(const std::string& path);

}  // namespace saccade
