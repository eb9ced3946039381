#pragma once
// A trained sequence model opened from its checkpoint: translation of typed text with the full
// alignment (every decoder step's distribution over the source), and evaluation on the task's
// test split (exact match, token accuracy, alignment error rate against the gold alignment,
// attention entropy, accuracy by source length, and the permutation test of Jain and Wallace
// 2019). Plain types: the GUI includes this header.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/seq_task.h"
#include "io/checkpoint.h"
#include "models/seq_config.h"

namespace saccade {

/// One attention matrix of a Transformer's translation.
struct SeqAttentionMap {
    std::string name;  ///< "cross layer 2 mean", "encoder layer 1 head 3", "encoder rollout", ...
    std::string kind;  ///< "cross" (output x source), "encoder" (source x source), "decoder" (output x its inputs)
    std::vector<std::vector<double>> weights;  ///< rows sum to 1
};

/// One input, one rule, one seed: what the decoder emitted and where it looked.
struct SeqTranslation {
    std::string rule;
    std::uint64_t seed = 1;
    std::vector<std::string> source;     ///< tokens as read (unknown ones as typed)
    std::vector<std::string> unknown;    ///< tokens outside the source vocabulary (read as <unk>)
    std::vector<std::string> tokens;     ///< one per decoder step, "</s>" last when it finished
    bool finished = false;               ///< emitted </s> within the step budget
    std::string output;                  ///< the tokens before </s>, as text
    std::vector<std::vector<double>> alignment;  ///< [steps][source]: each row sums to 1
    std::vector<int> chosen;             ///< per step: the source token a hard rule read, -1 under soft
    std::vector<double> entropy;         ///< per step, nats
    std::vector<double> centre;          ///< local-p: predicted position per step (else empty)
    /// Per step: the 5 likeliest words and their probabilities.
    std::vector<std::vector<std::pair<std::string, double>>> topWords;
    /// The task's own answer for this text, with its gold alignment, or why there is none.
    bool hasReference = false;
    std::string referenceError;
    SeqSample reference;
    /// Transformers: every layer and head of the three attentions, their means over heads, the
    /// encoder's rollout (Abnar and Zuidema 2020) and the last cross-attention through it. Empty
    /// for recurrent models, whose one map is `alignment`.
    std::vector<SeqAttentionMap> maps;
    bool correct() const;  ///< output equals the reference
};

/// `t` with map `index` of t.maps in place of the alignment, and the row and column labels that
/// map has (encoder maps: source x source, no gold; decoder maps: output x its inputs).
SeqTranslation withAttentionMap(const SeqTranslation& t, std::size_t index);

struct SeqLengthBucket {
    int length = 0;
    std::int64_t n = 0;
    double exactMatch = 0;
    bool seenInTraining = true;
};

struct SeqEvalReport {
    std::string task, rule, model;
    std::int64_t n = 0;
    double exactMatch = 0, tokenAccuracy = 0;
    /// Alignment error rate (Och and Ney 2003) of the decoder's attention fed the reference
    /// output: A = the argmax (or chosen) source token of each target token with a gold alignment;
    /// AER = 1 - (|A & sure| + |A & possible|) / (|A| + |sure|).
    double aer = 0;
    double entropy = 0;  ///< mean attention entropy per output step, nats
    /// Permutation test: total variation distance between the word distributions with the real
    /// and the shuffled attention weights, over every output step.
    double permutationMedianTv = 0, permutationMeanTv = 0, permutationSmallShare = 0;  ///< share with TV < 0.05
    bool permutationTested = false;  ///< false for Transformers (no single distribution per step)
    std::vector<SeqLengthBucket> byLength;
    double seconds = 0;
};

std::string seqEvalReportToJson(const SeqEvalReport& report);

struct SeqEvalOptions {
    std::int64_t limit = SeqTask::kTestSize;  ///< first N test sentences
    std::string rule;                        ///< default: the model's deterministic rule
    std::uint64_t seed = 1;                  ///< draws of sample and of the permutations
    bool permutation = true;
};

class SeqModel {
public:
    ~SeqModel();
    /// Opens a `seq` checkpoint; errors name the file and the problem (another model type, a task
    /// this build does not know or whose vocabulary differs, damaged weights).
    static Result<std::unique_ptr<SeqModel>> open(const std::string& path, const std::string& device = "auto");

    const SeqConfig& config() const;
    const SeqTask& task() const;
    const CheckpointInfo& info() const;
    const std::string& path() const;
    /// "soft" for soft models, "argmax" for hard ones.
    std::string deterministicRule() const;

    /// Rules: soft, argmax, sample (empty: deterministicRule()). Empty text, or more than 200
    /// tokens, is an Error; unknown tokens are read as <unk> and listed.
    Result<SeqTranslation> translate(const std::string& text, const std::string& rule = "", std::uint64_t seed = 1) const;

    /// The task's test split; `onProgress(done, total)` may return false to cancel (an Error).
    Result<SeqEvalReport> evaluate(const SeqEvalOptions& options,
                                   const std::function<bool(std::int64_t, std::int64_t)>& onProgress = {}) const;

private:
    struct Impl;
    explicit SeqModel(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m;
};

/// True when `path`'s sidecar says it holds a sequence model (no weights read).
bool isSeqCheckpoint(const std::string& path);

/// The test split's seed: every model of a task is measured on the same sentences.
constexpr std::uint64_t kSeqTestSeed = 1;

}  // namespace saccade
