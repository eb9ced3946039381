#pragma once
// The patch-attention classifier: Show-Attend-Tell's attention applied to classification.
// A small CNN turns the image into a g x g grid of D-dim cell features; for t = 1..T an LSTM's
// state scores the cells, a selection rule picks the context (soft: the expectation; hard: one
// sampled cell; gumbel: a straight-through one-hot), a gate beta = sigmoid(f(h)) scales it, and
// the LSTM reads it. A linear classifier reads each step's state.
// Engine header: includes LibTorch.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include "attention/scorer.h"
#include "attention/selection.h"
#include "common/stage_clock.h"
#include "models/patch/patch_config.h"

namespace saccade {

/// Everything one forward pass records, for losses, evaluation and traces.
struct PatchOutput {
    torch::Tensor logits;      ///< [B, C] the final step's class scores
    torch::Tensor stepLogits;  ///< [T, B, C]
    torch::Tensor probs;       ///< [T, B, L] attention distribution per step
    torch::Tensor indices;     ///< [T, B, K] chosen cells (K = 0 for soft)
    torch::Tensor logProb;     ///< [T, B] log-probability of each step's choice
    torch::Tensor entropy;     ///< [T, B]
};

class PatchClassifierImpl : public torch::nn::Module {
public:
    explicit PatchClassifierImpl(const PatchConfig& config);

    /// images [B, C, S, S] in [0, 1] on the module's device. `useExpectation` ([B] bool, optional)
    /// replaces the selected context by the expected (soft) one for those samples: the 0.5
    /// mixing of Xu et al. 2015 section 4.1. Draws come from `rng` only.
    /// With `episodes` > 1 and a single image, runs that many episodes of it: the encoder and
    /// the initial state are computed once and shared, and under sample or argmax the scorer,
    /// the recurrent step and the classifier run once per distinct path of cells so far.
    PatchOutput forward(const torch::Tensor& images, const SelectionOptions& rule, Rng& rng,
                        const torch::Tensor& useExpectation = {}, std::int64_t episodes = 1);
    /// forward() with `encoded` = encode(images) computed once for several rules or draws. The
    /// dense variant reads only the keys: `images` may be undefined there.
    PatchOutput forwardEncoded(const torch::Tensor& images, const torch::Tensor& encoded,
                               const SelectionOptions& rule, Rng& rng,
                               const torch::Tensor& useExpectation = {}, std::int64_t episodes = 1);

    /// The keys the scorer reads, [B, L, K]: the cell features (dense) or the cheap
    /// low-resolution features (select).
    torch::Tensor encode(const torch::Tensor& images);
    /// Dense variant: the encoder's first layer alone, a convolution (affine in the pixels):
    /// images [B, C, S, S] -> [B, 16, S, S].
    torch::Tensor encoderStem(const torch::Tensor& images);
    /// Dense variant: encode() of the P images whose encoderStem() outputs are start + alphas[p] *
    /// direction (start, direction [1, 16, S, S]; alphas [P]), without forming those outputs
    /// (models/path_pooling.h): keys [P, L, D] whose graph reaches start and direction.
    torch::Tensor encodeStemPath(const torch::Tensor& start, const torch::Tensor& direction,
                                 const torch::Tensor& alphas);
    /// Select variant: the patch network's features of the given cells. images [B, C, S, S],
    /// cells [B] int64 -> [B, D]. Only these B windows are processed.
    torch::Tensor patchFeatures(const torch::Tensor& images, const torch::Tensor& cells);
    /// Select variant: every cell's patch features [B, L, D] (what soft attention needs).
    torch::Tensor allPatchFeatures(const torch::Tensor& images);

    /// The cell features soft attention weights, [B, L, D]: the encoded cells (dense) or every
    /// cell's patch features (select). `encoded` = encode(images).
    torch::Tensor softValues(const torch::Tensor& images, const torch::Tensor& encoded);
    /// The soft rule with `attention` [T, B, L] in place of the scorer's distribution at each step:
    /// the context is attention[t] weighted over `values` (softValues), gated and read by the
    /// LSTM as forward() does. Logits [B, C] of the final step; the graph reaches `attention`.
    torch::Tensor logitsUnderAttention(const torch::Tensor& encoded, const torch::Tensor& values,
                                       const torch::Tensor& attention);

    const PatchConfig& config() const { return m_config; }
    /// The cell encoder (dense: the features; select: the cheap pass) and, in the select
    /// variant, the patch network (else empty): for counting their multiply-adds.
    const torch::nn::Sequential& encoder() const { return m_encoder; }
    const torch::nn::Sequential& patchNet() const { return m_patchNet; }
    /// Times the stages of later forward() calls (encoder, scoring, selection, patch network,
    /// recurrent + classifier) on `clock`; null stops.
    void setStageClock(StageClock* clock) { m_clock = clock; }

private:
    /// forward() for episodes of one image under a single-cell rule, one state per distinct
    /// path prefix. Selection still runs on every row, so each row's draws are unchanged.
    PatchOutput forwardPaths(const torch::Tensor& one, const torch::Tensor& encoded,
                             const SelectionOptions& rule, Rng& rng, std::int64_t episodes);

    PatchConfig m_config;
    StageClock* m_clock = nullptr;
    torch::nn::Sequential m_encoder{nullptr};    // dense: the cell features; select: the cheap pass
    torch::nn::Sequential m_patchNet{nullptr};   // select only
    torch::Tensor windows(const torch::Tensor& images);  // [B, C*w*w, L]
    Scorer m_scorer{nullptr};
    torch::nn::LSTMCell m_rnn{nullptr};
    torch::nn::Linear m_initH{nullptr}, m_initC{nullptr}, m_gate{nullptr}, m_classifier{nullptr};
};
TORCH_MODULE(PatchClassifier);

}  // namespace saccade
