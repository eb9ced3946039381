#pragma once
// ScriptModel: a user's own TorchScript model (torch.jit.script or torch.jit.trace, saved with
// torch.jit.save) behind the model interface, as docs/model-contract.md describes it. Its forward
// returns `logits` and one form of attention (a grid per step, glimpse locations, or a
// transformer's attention weights); an optional forward_sampled(image, seed) gives the sampled
// rules and the Runs tab. Everything about the file is checked on load and on the first forward
// (a probe on a grey image), and every forward after that is checked again.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/attention_model.h"

namespace saccade {

struct ScriptArchive;  // models/script/script_archive.h

class ScriptModel : public AttentionModel {
public:
    ~ScriptModel() override;
    /// Loads `path` onto `device`. Errors name the file and the exact problem: not a TorchScript
    /// archive, no forward, a missing key, a wrong rank or dtype, sizes that do not fit,
    /// distributions that do not sum to 1, NaN or inf, class names that disagree with the logits.
    /// `input` sets the resize, centre crop and normalisation over the file's own settings.
    static Result<std::shared_ptr<ScriptModel>> load(const std::string& path, const std::string& device = "auto",
                                                     const InputOverrides& input = {});
    /// The same from an archive already opened (models/script/script_archive.h); the script
    /// family opens a file once and picks the classifier or the captioner by its methods.
    static Result<std::shared_ptr<ScriptModel>> load(const ScriptArchive& archive, const InputOverrides& input = {});

    /// "grid", "glimpses" or "transformer": the form of attention forward returns.
    std::string form() const;
    bool hasSampledForward() const;  ///< forward_sampled(image, seed) exists
    int heads() const;  ///< a transformer's attention heads per layer (head:0 to head:heads-1); else 0
    bool hasStochasticRuns() const override;  ///< forward_sampled exists and the form is not a transformer

    const CheckpointInfo& info() const override;
    std::string deviceName() const override;
    std::vector<std::string> classNames() const override;
    int imageSize() const override;
    int channels() const override;
    int steps() const override;  ///< attention steps, or a transformer's layers
    TrainingMode trainedMode() const override { return TrainingMode::Imported; }
    /// "forward" (what forward returns), or "attention" for transformers (the mean over heads).
    std::string deterministicRule() const override;
    std::string summary() const override;
    std::string preprocessing() const override;
    RuleMenu ruleMenu() const override;
    std::string displayName() const override;
    /// Set when forward's logits were exactly equal for every class on the probe image.
    std::string warning() const override;
    /// forward, with forward_sampled also sample and ksample:10; transformers: attention.
    std::vector<std::string> evaluationRules() const override;
    /// forward (under its deterministic rule) with the graph kept, for attribution; its grid is the
    /// optional `features` output. No attention graph: the `attentions` a transformer returns are
    /// stacked copies of its layers' weights, which its logits do not depend on.
    GradientForward* gradientForward() override;

    /// Rules: forward; with forward_sampled, sample (forward_sampled(image, seed)) and ksample:K
    /// (K such runs, seeds runSeed(seed, k), averaged). Transformers: attention, rollout, head:K
    /// (models/transformer_maps.h), one step per layer.
    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override;
    /// Batched (64 images a forward) where the answer comes from forward: a transformer under any
    /// rule, the others under forward; sampled rules go one trace per image.
    Result<std::vector<std::vector<float>>> outputProbs(const std::vector<Image>& images, const std::string& rule,
                                                        std::uint64_t seed) override;
    Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                              const std::optional<GroundTruth>& truth, int kSample = 10,
                              const Progress& progress = {}) override;
    Result<EvalReport> evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                std::int64_t limit, std::uint64_t seed, const Progress& progress = {},
                                const Shard& shard = {}) override;

protected:
    ImageFit declaredFit() const override;

private:
    ScriptModel();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};


}  // namespace saccade
