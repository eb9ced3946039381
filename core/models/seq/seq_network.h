#pragma once
// An encoder-decoder with attention over the source (Bahdanau et al. 2015; Luong et al. 2015).
// A bidirectional GRU or LSTM reads the source into keys k_s (2 x encoder_hidden each); the
// decoder state starts at tanh(W mean_s k_s). At each target step the engine's scorer rates every
// k_s against the previous decoder state h_{t-1} (local-p adds Luong's predicted centre
// p_t = (S - 1) sigmoid(v tanh(W h_{t-1})) and a Gaussian window of half-width D, sigma D / 2,
// renormalised so rows sum to 1), a selection rule forms the context c_t (soft: sum_s a_ts k_s;
// sample/argmax: one k_s), the cell reads [E y_{t-1}, c_t], and the word comes from
// softmax(W_o [h_t, c_t]).
//
// The context enters the cell and the output only through linear maps: one product per step
// gives both ([W_c; W_oc] c_t), and the words' input gates come from one product over every
// target step (teacher forcing) or a table over the vocabulary (decoding).
// Engine header: includes LibTorch.

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include "attention/scorer.h"
#include "attention/selection.h"
#include "common/rng.h"
#include "models/seq/seq_config.h"
#include "models/seq/seq_net.h"

namespace saccade {

class SeqNetworkImpl : public SeqNetBase {
public:
    explicit SeqNetworkImpl(const SeqConfig& config);

    /// source [B, S] int64 ids (kSeqPad after each row's length), lengths [B] int64 >= 1.
    SeqEncoded encode(const torch::Tensor& source, const torch::Tensor& lengths) override;
    torch::Tensor embedSource(const torch::Tensor& source) override { return m_srcEmbed(source); }
    /// The module's GRU or LSTM (never the fused CPU loop, which reads the table itself).
    SeqEncoded encodeEmbedded(const torch::Tensor& embedded, const torch::Tensor& source,
                              const torch::Tensor& lengths) override;

    /// Teacher forcing: `input` [B, T] starts with <s> and holds the target shifted right; step t
    /// reads input[:, t]. `rule` is the location rule (soft; sample or argmax for hard alignment).
    SeqSteps teacherForced(const SeqEncoded& enc, const torch::Tensor& input, const SelectionOptions& rule, Rng& rng) override;

    /// Greedy words for up to `maxSteps` steps (stops once every row has emitted </s>, unless
    /// `stopWhenDone` is false: benchmarks run every step).
    SeqSteps decode(const SeqEncoded& enc, std::int64_t maxSteps, const SelectionOptions& rule, Rng& rng,
                    bool stopWhenDone = true) override;

    /// The permutation test of Jain and Wallace (2019) along the model's own output `tokens`
    /// [B, T] (as decode() emitted them): at every step the attention weights are shuffled over
    /// the source (one random permutation per row and step, from `rng`; under a hard rule the
    /// one-hot of the token read moves with them), the step is run again from
    /// the same state, and the total variation distance between the two word distributions is
    /// returned, [B, T]. The state then follows the unshuffled step.
    torch::Tensor permutationDistance(const SeqEncoded& enc, const torch::Tensor& tokens, const SelectionOptions& rule,
                                      Rng& rng) override;

    const SeqConfig& config() const override { return m_config; }
    /// Teacher forcing defers the decoder's weight gradients (models/deferred_weight_grads.h);
    /// off, every step's products are plain autograd (for tests).
    void setDeferredWeightGrads(bool on) { m_deferGrads = on; }

private:
    /// The decoder's start and the scorer's keys from e.keys.
    void finishEncode(SeqEncoded& e, const torch::Tensor& source);
    struct State {
        torch::Tensor h, c;
    };
    /// Scores of every source token against the state, and local-p's centre ([B], else undefined).
    torch::Tensor scores(const State& state, const SeqEncoded& enc, torch::Tensor* centre);
    /// The decoder's products with the context and hidden weights, their gradients deferred
    /// (models/deferred_weight_grads.h); teacher forcing makes one per batch.
    struct StepProducts;
    /// Advances the state with the embedding part `gi` [B, G] and the context `ctx` [B, K];
    /// returns the word logits.
    torch::Tensor advance(State& state, const torch::Tensor& gi, const torch::Tensor& ctx, StepProducts* products = nullptr);
    /// advance() with the embedding part read from `table` [V, G] at `word` [B]; one fused loop
    /// on the CPU without autograd (GRU).
    torch::Tensor advanceFromTable(State& state, const torch::Tensor& table, const torch::Tensor& word,
                                   const torch::Tensor& ctx);

    SeqConfig m_config;
    bool m_deferGrads = true;
    torch::nn::Embedding m_srcEmbed{nullptr}, m_tgtEmbed{nullptr};
    torch::nn::GRU m_gru{nullptr};
    torch::nn::LSTM m_lstm{nullptr};
    torch::nn::Linear m_bridge{nullptr}, m_bridgeC{nullptr};
    Scorer m_scorer{nullptr};
    torch::nn::Linear m_posHidden{nullptr}, m_posOut{nullptr};  // local-p
    torch::nn::Linear m_inEmbed{nullptr}, m_ctx{nullptr}, m_hh{nullptr};  // m_ctx: K -> G + V
    torch::nn::Linear m_outH{nullptr};
};
TORCH_MODULE(SeqNetwork);

}  // namespace saccade
