#pragma once
// ScriptCaptioner: a user's own TorchScript captioner behind the model interface, as
// docs/model-contract.md ("Captioners") describes it. The module has a method
// caption(image: Tensor, max_len: int) -> Dict[str, Tensor] returning `tokens` [N, T] (int64)
// and `attention` [N, T, h, w] (each step a distribution over the grid), optionally `chosen`
// [N, T] (the cell a hard choice read), and an attribute vocabulary: List[str] (optionally
// end_token: int). An optional caption_sampled(image, max_len, seed) gives the rule `sample`.
// A step of a trace is a word: TraceStep::token, the map in grid, the choice in chosenCells;
// classNames() is the vocabulary and TraceOutput::text the caption (outputKind "caption").
// Everything is checked on load (the signature, the vocabulary, a probe on a grey image) and on
// every call after that; each failure is one line. Not thread-safe: one caller at a time.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/attention_model.h"

namespace saccade {

struct ScriptArchive;  // models/script/script_archive.h

/// The words a captioner may say per caption when Saccade calls caption(image, max_len).
inline constexpr int kScriptCaptionMaxLen = 20;

class ScriptCaptioner : public AttentionModel {
public:
    ~ScriptCaptioner() override;
    /// Loads `path` onto `device`; `input` sets the resize, crop and normalisation over the
    /// module's own settings (as for ScriptModel). Errors name the file and the exact problem.
    static Result<std::shared_ptr<ScriptCaptioner>> load(const std::string& path, const std::string& device = "auto",
                                                         const InputOverrides& input = {});
    static Result<std::shared_ptr<ScriptCaptioner>> load(const ScriptArchive& archive, const InputOverrides& input = {});
    /// Whether an opened module is a captioner: it has a `caption` method.
    static bool isCaptioner(const ScriptArchive& archive);

    bool hasSampledCaption() const;  ///< caption_sampled(image, max_len, seed) exists
    int endToken() const;            ///< the end_token attribute, or -1 without one

    const CheckpointInfo& info() const override;
    std::string deviceName() const override;
    std::vector<std::string> classNames() const override;  ///< the vocabulary
    int imageSize() const override;
    int channels() const override;
    int steps() const override;  ///< the steps the probe's caption had (max_len or fewer)
    TrainingMode trainedMode() const override { return TrainingMode::Imported; }
    std::string deterministicRule() const override { return "caption"; }
    /// Refused: caption() returns words and maps but no word scores to differentiate or occlude.
    Result<std::shared_ptr<GradientForward>> wordForward(const std::vector<std::string>& words, int step,
                                                         const std::string& rule) override;
    std::string summary() const override;
    std::string preprocessing() const override;
    OutputKind outputKind() const override { return OutputKind::Caption; }
    bool hasStochasticRuns() const override { return false; }
    RuleMenu ruleMenu() const override;
    std::string displayName() const override;
    CellGrid cellGrid() const override;
    /// caption; with caption_sampled also sample.
    std::vector<std::string> evaluationRules() const override;

    /// One caption: caption(image, max_len) (rule "caption") or caption_sampled(image, max_len,
    /// seed) (rule "sample"). One step per word up to and including end_token; each step's
    /// outputProbs is one-hot on its word (the method gives no word probabilities).
    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override;
    /// Not supported: an Error that says so (views that need runs say so too).
    Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                              const std::optional<GroundTruth>& truth, int kSample = 10,
                              const Progress& progress = {}) override;
    /// Exact match (as accuracy) and corpus BLEU-1..4 against the dataset's references, per rule,
    /// on a dataset with captions (scenes64, scenes96). Attention correctness per word class is
    /// not measured (empty). Batched (100 images a call) under caption; sample goes image by
    /// image with evaluationSeed(seed, i).
    Result<EvalReport> evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                std::int64_t limit, std::uint64_t seed, const Progress& progress = {},
                                const Shard& shard = {}) override;

protected:
    ImageFit declaredFit() const override;

private:
    ScriptCaptioner();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace saccade
