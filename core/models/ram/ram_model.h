#pragma once
// RamModel: a loaded Recurrent Attention Model behind the plain AttentionModel API.
// Rules: sample (one draw per step), mean (the policy mean: deterministic, RAM's "argmax"),
// random (uniform glimpse locations: a control that ignores the policy), and ksample:K (K sampled
// episodes with their class probabilities averaged).

#include <memory>

#include "models/attention_model.h"
#include "models/ram/ram_config.h"

namespace saccade {

class RamModel : public AttentionModel {
public:
    ~RamModel() override;
    /// Loads a checkpoint (weights + sidecar); errors name the file and the problem.
    static Result<std::shared_ptr<RamModel>> load(const std::string& path, const std::string& device = "auto");

    const RamConfig& config() const;
    const CheckpointInfo& info() const override;
    std::string deviceName() const override;
    std::vector<std::string> classNames() const override;
    int imageSize() const override;
    int channels() const override;
    int steps() const override;
    TrainingMode trainedMode() const override { return TrainingMode::Reinforce; }
    std::string deterministicRule() const override { return "mean"; }
    std::string summary() const override;
    /// Differentiable under its deterministic rule; no convolutional grid.
    GradientForward* gradientForward() override;
    RuleMenu ruleMenu() const override;
    std::string displayName() const override;

    /// Per step: the Gaussian policy (mean and standard deviation in pixels; none at the fixed
    /// first glimpse or under random), the location, the glimpse boxes of every scale, the
    /// log-density of the location, the policy's entropy over pixel positions, and the class
    /// probabilities.
    /// ksample:K runs K episodes at once: the mean location, every episode's finest glimpse box,
    /// and the averaged output.
    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed,
                        const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override;

    /// Runs are sampled episodes; points are glimpse centres, entropy the Gaussian policy's (0 at
    /// the fixed first glimpse). No soft attention.
    Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                              const std::optional<GroundTruth>& truth, int kSample = 10,
                              const Progress& progress = {}) override;

    Result<EvalReport> evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                std::int64_t limit, std::uint64_t seed, const Progress& progress = {},
                                const Shard& shard = {}) override;

private:
    RamModel();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace saccade
