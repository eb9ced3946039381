#pragma once
// A trained sequence model opened from its checkpoint (a Translator, models/translator.h):
// translation of typed text with the full alignment (every decoder step's distribution over the
// source), and evaluation on the task's test split (exact match, token accuracy, alignment error
// rate against the gold alignment, attention entropy, accuracy by source length, and the
// permutation test of Jain and Wallace 2019). Plain types.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/seq_task.h"
#include "io/checkpoint.h"
#include "models/seq/seq_config.h"
#include "models/translator.h"
#include "trace/seq_translation.h"

namespace saccade {

class SeqModel : public Translator {
public:
    ~SeqModel() override;
    /// Opens a `seq` checkpoint; errors name the file and the problem (another model type, a task
    /// this build does not know or whose vocabulary differs, damaged weights).
    static Result<std::unique_ptr<SeqModel>> open(const std::string& path, const std::string& device = "auto");

    const SeqConfig& config() const;
    const CheckpointInfo& info() const;
    const std::string& path() const override;
    std::string describe() const override;
    std::string taskName() const override;
    const SeqTask* task() const override;
    SeqTokenKind tokenKind() const override;
    SeqTokens tokenize(const std::string& text) const override;
    std::vector<std::string> splitTarget(const std::string& text) const override;
    bool writes(const std::string& token) const override;
    bool canForceTarget() const override { return true; }
    /// Its deterministic rules (soft, argmax) over the source's embedding rows.
    SeqGradientForward* gradientForward() const override;
    /// Soft models: soft, argmax, sample; hard ones: argmax, soft, sample; Transformers: soft.
    std::vector<std::string> rules() const override;

    /// Rules: soft, argmax, sample (empty: deterministicRule()). Empty text, or more than 200
    /// tokens, is an Error; unknown tokens are read as <unk> and listed.
    Result<SeqTranslation> translate(const std::string& text, const std::string& rule = "", std::uint64_t seed = 1) const override;
    Result<std::vector<std::vector<double>>> forcedAlignment(const std::vector<std::string>& source,
                                                             const std::vector<std::string>& target, const std::string& rule,
                                                             std::uint64_t seed) const override;

    /// The task's test split; `onProgress(done, total)` may return false to cancel (an Error).
    Result<SeqEvalReport> evaluate(const SeqEvalOptions& options, const SeqEvalProgress& onProgress = {}) const override;

private:
    struct Impl;
    explicit SeqModel(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m;
};

/// True when `path`'s sidecar says it holds a sequence model (no weights read).
bool isSeqCheckpoint(const std::string& path);

}  // namespace saccade
