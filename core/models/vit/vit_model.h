#pragma once
// VitModel: a loaded native Vision Transformer behind the model interface. Its steps are its
// layers: per layer, the CLS token's attention over the patches under the rule attention (the
// mean over heads), head:K or rollout (models/transformer_maps.h). Its answer does not depend on
// the rule, and nothing in it is sampled: evaluation has the one rule attention.

#include <memory>
#include <string>

#include "models/attention_model.h"
#include "models/vit/vit_config.h"

namespace saccade {

class VitModel : public AttentionModel {
public:
    ~VitModel() override;
    static Result<std::shared_ptr<VitModel>> load(const std::string& path, const std::string& device = "auto");

    const VitConfig& config() const;
    const CheckpointInfo& info() const override;
    std::string deviceName() const override;
    std::vector<std::string> classNames() const override;
    int imageSize() const override;
    int channels() const override;
    int steps() const override;  ///< layers
    TrainingMode trainedMode() const override { return TrainingMode::Soft; }
    std::string deterministicRule() const override { return "attention"; }
    std::string summary() const override;
    RuleMenu ruleMenu() const override;
    std::string displayName() const override;
    std::vector<std::string> evaluationRules() const override { return {"attention"}; }
    bool hasStochasticRuns() const override { return false; }

    /// Differentiable under its deterministic rule; no convolutional grid.
    GradientForward* gradientForward() override;

    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override;
    /// Batched, 64 images a forward (the answer does not depend on the rule, which is checked).
    Result<std::vector<std::vector<float>>> outputProbs(const std::vector<Image>& images, const std::string& rule,
                                                        std::uint64_t seed) override;
    /// A transformer's attention is not sampled: an Error that says so.
    Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                              const std::optional<GroundTruth>& truth, int kSample = 10,
                              const Progress& progress = {}) override;
    Result<EvalReport> evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                std::int64_t limit, std::uint64_t seed, const Progress& progress = {},
                                const Shard& shard = {}) override;

private:
    VitModel();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace saccade
