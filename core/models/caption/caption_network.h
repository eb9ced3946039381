#pragma once
// The Show-Attend-Tell captioner (Xu et al. 2015). A CNN turns the RGB image into a g x g grid
// of D-dim annotation vectors a_i. An LSTM, initialised from the mean annotation
// (h0 = tanh(W_h mean a), c0 = tanh(W_c mean a)), emits one word per step: the engine's scorer
// rates every a_i against h_{t-1}, a selection rule forms the context z_t (soft: the expectation;
// sample/argmax: one location; gumbel: a straight-through one-hot), the gate
// scalar beta_t = sigmoid(f_beta(h_{t-1})) scales it, the LSTM reads [E y_{t-1}, beta_t z_t], and the deep
// output layer gives the word: p(y_t) = softmax(L_o(dropout(E y_{t-1} + L_h h_t + L_z z_t))).
// Engine header: includes LibTorch.

#include <cstdint>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include "attention/scorer.h"
#include "attention/selection.h"
#include "common/stage_clock.h"
#include "models/caption/caption_config.h"
#include "models/deferred_weight_grads.h"

namespace saccade {

/// Per word step t of a batch: what the decoder looked at and what it said.
struct CaptionSteps {
    torch::Tensor wordLogits;  ///< [T, B, V]
    torch::Tensor probs;       ///< [T, B, L] attention distribution
    torch::Tensor indices;     ///< [T, B, K] chosen locations (K = 0 for soft)
    torch::Tensor logProb;     ///< [T, B] log-probability of each location choice
    torch::Tensor entropy;     ///< [T, B] of the attention distribution, nats
};

/// A decoded caption batch: tokens after <start>, up to and including <end>, then <pad>.
struct DecodedCaptions {
    torch::Tensor tokens;   ///< [B, T] int64
    torch::Tensor lengths;  ///< [B] int64: words before <end> (a caption without <end> counts T)
    torch::Tensor wordLogProb;  ///< [T, B] log-probability of each emitted word
    CaptionSteps steps;
};

/// One beam-search hypothesis.
struct BeamCaption {
    std::vector<std::int64_t> tokens;  ///< words, without <start>, with <end> when it finished
    double logProb = 0;                ///< of the words
    std::vector<torch::Tensor> probs;  ///< per step [L] attention; indices likewise ([K])
    std::vector<torch::Tensor> indices;
    std::vector<torch::Tensor> wordProbs;  ///< per step [V]
};

class CaptionNetworkImpl : public torch::nn::Module {
public:
    explicit CaptionNetworkImpl(const CaptionConfig& config);

    /// images [B, C, S, S] in [0, 1] -> annotations [B, L, D] (row-major cells). With `grid`, the
    /// encoder's output [B, D, g, g] there too, in the same graph (Grad-CAM's feature grid).
    torch::Tensor encode(const torch::Tensor& images, torch::Tensor* grid = nullptr);

    /// Teacher forcing: tokens [B, T + 1] (<start>, words, <end>, <pad>...) give T steps, step t
    /// reading token t and predicting token t + 1. `useExpectation` ([B] bool, optional) replaces
    /// the chosen context by the expected one for those rows (Xu et al. 2015 section 4.1's 0.5 mix).
    /// A row stops at its last word: the batch shrinks as captions end (rows are sorted by length
    /// inside and put back in order), and steps past a row's end give zeros (logits, attention,
    /// locations, log-probability, entropy) that the loss masks out with the <pad> targets. `rng`
    /// is one stream for the batch (per-row streams would not follow the sorted, shrinking rows).
    CaptionSteps teacherForced(const torch::Tensor& annotations, const torch::Tensor& tokens,
                               const SelectionOptions& rule, Rng& rng,
                               const torch::Tensor& useExpectation = {});

    /// Free decoding of up to maxLength - 1 words under `rule`; words greedy (wordTemperature 0)
    /// or sampled from softmax(logits / T) with draws from `wordRng`. With `episodes` > 1 and one
    /// image, that many captions of it (locations drawn per row: give `rng` per-row streams).
    DecodedCaptions decode(const torch::Tensor& annotations, const SelectionOptions& rule, Rng& rng,
                           double wordTemperature = 0, Rng* wordRng = nullptr, std::int64_t episodes = 1);

    /// Beam search over words for one image (annotations [1, L, D]) with `beam` hypotheses and a
    /// deterministic location rule (soft or argmax). Returns the finished hypotheses, best
    /// (highest log-probability) first.
    std::vector<BeamCaption> beamSearch(const torch::Tensor& annotations, int beam, const SelectionOptions& rule);

    const CaptionConfig& config() const { return m_config; }
    const torch::nn::Sequential& encoder() const { return m_encoder; }
    /// Whether teacher forcing defers the cell's weight gradients to one product at the end of
    /// the backward pass (models/deferred_weight_grads.h); on by default, off to compare.
    void setDeferredWeightGrads(bool on) { m_deferGrads = on; }
    bool deferredWeightGrads() const { return m_deferGrads; }

    /// Times the stages of later calls (encoder, scoring, selection, decoder) on `clock`.
    void setStageClock(StageClock* clock) { m_clock = clock; }

private:
    struct State;
    State start(const torch::Tensor& annotations, std::int64_t episodes);
    /// What the LSTM's input weights and biases make of token embeddings [N, E]: [N, 4H].
    torch::Tensor wordGates(const torch::Tensor& embedded);
    /// One word step from `state` reading token embeddings `embedded` [B, E] and their
    /// wordGates(); returns word logits.
    torch::Tensor step(State& state, const torch::Tensor& embedded, const torch::Tensor& gates, const SelectionOptions& rule,
                       Rng& rng, const torch::Tensor& useExpectation, Selection* out);
    /// step() up to the LSTM (scores, selection, the beta gate, the cell); returns the gated
    /// context the output layer reads.
    /// With `products`, the cell's products with its context and hidden weights go through it.
    torch::Tensor advance(State& state, const torch::Tensor& gates, const SelectionOptions& rule, Rng& rng,
                          const torch::Tensor& useExpectation, Selection* out, DeferredWeightGrads* products = nullptr);
    /// The deep output layer (with dropout in training) on rows of any steps: word logits from
    /// the word embeddings [N, E], the states h [N, H] and the gated contexts [N, D].
    torch::Tensor output(const torch::Tensor& embedded, const torch::Tensor& h, const torch::Tensor& gated);
    /// step() for a single-cell rule without gradients, from the state's per-cell tables.
    torch::Tensor stepSingleCell(State& state, const torch::Tensor& word, const SelectionOptions& rule, Rng& rng,
                                 Selection* selection);

    CaptionConfig m_config;
    StageClock* m_clock = nullptr;
    bool m_deferGrads = true;
    torch::nn::Sequential m_encoder{nullptr};
    torch::Tensor m_position;  ///< [g^2, D] with cell positions; undefined without
    Scorer m_scorer{nullptr};
    torch::nn::Embedding m_embed{nullptr};
    torch::nn::LSTMCell m_rnn{nullptr};
    torch::nn::Linear m_initH{nullptr}, m_initC{nullptr}, m_beta{nullptr};
    torch::nn::Linear m_outH{nullptr}, m_outZ{nullptr}, m_out{nullptr};
};
TORCH_MODULE(CaptionNetwork);

}  // namespace saccade
