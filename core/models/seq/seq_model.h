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
#include "models/seq/seq_config.h"
#include "trace/seq_translation.h"

namespace saccade {

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
