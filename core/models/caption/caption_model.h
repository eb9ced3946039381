#pragma once
// CaptionModel: a loaded Show-Attend-Tell captioner behind the plain AttentionModel API. A step
// is a word: where the decoder looked (a grid distribution over the annotation cells, and the
// chosen cell under hard rules) and what it said (TraceStep::token, with the word distribution
// in outputProbs over the vocabulary, which classNames() returns).
// Rules: soft, argmax, sample (locations; words greedy unless a word temperature is set),
// gumbel:TAU, beam:K (beam search over words with the training-time deterministic attention), and
// ksample:K (K sampled captions; the most frequent one, earliest on ties, is the output).

#include <memory>

#include "models/attention_model.h"
#include "trace/ground_truth.h"
#include "models/caption/caption_config.h"

namespace saccade {

class CaptionModel : public AttentionModel {
public:
    ~CaptionModel() override;
    /// Loads a checkpoint (weights + sidecar); errors name the file and the problem.
    static Result<std::shared_ptr<CaptionModel>> load(const std::string& path, const std::string& device = "auto");

    const CaptionConfig& config() const;
    const CheckpointInfo& info() const override;
    std::string deviceName() const override;
    std::vector<std::string> classNames() const override;  ///< the vocabulary
    int imageSize() const override;
    int channels() const override;
    int steps() const override;  ///< the most words a caption can have, <end> included
    TrainingMode trainedMode() const override;
    std::string deterministicRule() const override { return "argmax"; }
    std::string summary() const override;
    RuleMenu ruleMenu() const override;
    std::string displayName() const override;
    CellGrid cellGrid() const override;
    OutputKind outputKind() const override { return OutputKind::Caption; }
    std::vector<std::string> evaluationRules() const override;

    /// Word `step` of `words` as a classifier of the image (AttentionModel::wordForward): the
    /// encoder, then the decoder teacher-forced on the earlier words under soft or argmax
    /// attention; its feature grid is the encoder's g x g output, the grid attention reads.
    Result<std::shared_ptr<GradientForward>> wordForward(const std::vector<std::string>& words, int step,
                                                         const std::string& rule) override;

    /// Words of stochastic captions (sample, ksample) are drawn at this temperature (0: greedy,
    /// the default). Must be finite and >= 0.
    Result<Unit> setWordTemperature(double temperature) override;
    double wordTemperature() const;

    /// One caption of one image; steps stop after <end>. With ground truth (boxes and names of
    /// the scene's objects), each step records the object its word names (wordObject).
    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override;

    /// Stochastic captions: run i samples a location per word with seed + i. The set's outputs
    /// are the distinct captions (outputKind "caption"); with references in the truth, a run is
    /// right when its caption is one of them.
    Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                              const std::optional<GroundTruth>& truth, int kSample = 10,
                              const Progress& progress = {}) override;

    /// Exact match (as accuracy), corpus BLEU-1..4 and attention correctness per rule.
    Result<EvalReport> evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                std::int64_t limit, std::uint64_t seed, const Progress& progress = {},
                                const Shard& shard = {}) override;

private:
    CaptionModel();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};


}  // namespace saccade
