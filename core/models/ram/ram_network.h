#pragma once
// The Recurrent Attention Model network (Mnih et al. 2014): glimpse network (h_g from the
// glimpse, h_l from the location, g = relu(W1 h_g + W2 h_l)), a recurrent core (ReLU RNN or
// LSTM), a Gaussian location policy with fixed standard deviation (mean = tanh(W h), read from
// the detached state as in the paper), a learned baseline, and a classifier.
// Engine header: includes LibTorch.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include "common/rng.h"
#include "common/stage_clock.h"
#include "models/ram/glimpse_sensor.h"
#include "models/ram/ram_config.h"

namespace saccade {

/// How each next location is chosen: drawn from the policy, its mean (the deterministic
/// "argmax" of a Gaussian), or uniformly at random (a control that ignores the policy).
enum class RamRule { Sample, Mean, Random };

struct RamOutput {
    torch::Tensor logits;      ///< [B, C] the final state's class scores
    torch::Tensor stepLogits;  ///< [T, B, C] when requested
    torch::Tensor locations;   ///< [T, B, 2] where each glimpse was taken, clamped to [-1, 1]
    torch::Tensor means;       ///< [T, B, 2] the policy mean for each glimpse (step 0: the start)
    torch::Tensor logProb;     ///< [T, B] log-density of each location under its policy (0 at t=0)
    torch::Tensor baselines;   ///< [T, B] b_t, from the detached state
    /// Glimpses that went through the glimpse layers: with episodes of one image, the first step
    /// and glimpses at a centre pixel another episode also chose in that step are computed once.
    std::int64_t glimpsesComputed = 0;
};

class RamNetworkImpl : public torch::nn::Module {
public:
    explicit RamNetworkImpl(const RamConfig& config);

    /// images [B, C, S, S] in [0, 1]. With `episodes` > 1 and a single image, runs that many
    /// episodes of it in one batch (the image's summed-area table is shared). The first glimpse
    /// is at the centre (random rule: a random place); draws come from `rng` only.
    RamOutput forward(const torch::Tensor& images, RamRule rule, Rng& rng, bool stepLogits = false,
                      std::int64_t episodes = 1);

    const RamConfig& config() const { return m_config; }
    /// Times the stages of later forward() calls (glimpse sensor, glimpse network, recurrent
    /// core, policy, classifier) on `clock`; null stops.
    void setStageClock(StageClock* clock) { m_clock = clock; }
    GlimpseGeometry geometry() const;

private:
    /// W(what -> g) relu(W_g glimpse) for locations `l` [N, 2]; `dedupe` computes each distinct
    /// centre pixel once (for episodes of one image). Adds the rows computed to `computed`.
    torch::Tensor glimpseFeatures(const torch::Tensor& sat, const torch::Tensor& l, bool dedupe,
                                  std::int64_t& computed);

    RamConfig m_config;
    StageClock* m_clock = nullptr;
    torch::nn::Linear m_glimpse{nullptr}, m_location{nullptr}, m_whatToG{nullptr}, m_whereToG{nullptr};
    torch::nn::Linear m_inputToHidden{nullptr}, m_hiddenToHidden{nullptr};
    torch::nn::LSTMCell m_lstm{nullptr};
    torch::nn::Linear m_policy{nullptr}, m_baseline{nullptr}, m_classifier{nullptr};
};
TORCH_MODULE(RamNetwork);

/// The hybrid loss of Mnih et al. 2014 for a batch: cross-entropy of the final output, the
/// baselines' squared error against the reward (1 when the class is right), and REINFORCE on the
/// locations, each scored against the baseline of the state that drew it.
struct RamLoss {
    torch::Tensor total, crossEntropy, baseline, reinforce;
    torch::Tensor reward;  ///< [B], detached
};
RamLoss ramHybridLoss(const RamOutput& out, const torch::Tensor& labels);

}  // namespace saccade
