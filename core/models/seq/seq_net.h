#pragma once
// What every sequence network shares: the encoded source, the record of the decoder's steps, and
// the interface the trainer, the model and the benchmark call (the recurrent encoder-decoder in
// seq_network.h, the Transformer in seq_transformer.h).
// Engine header: includes LibTorch.

#include <cstdint>
#include <memory>

#include <torch/nn/module.h>

#include "attention/selection.h"
#include "common/rng.h"
#include "models/seq/seq_config.h"

namespace saccade {

/// A source batch read by the encoder.
struct SeqEncoded {
    torch::Tensor keys;      ///< [B, S, 2 x encoder_hidden]
    torch::Tensor prepared;  ///< the scorer's view of the keys
    torch::Tensor mask;      ///< [B, S] bool, true at real tokens
    torch::Tensor lengths;   ///< [B] int64 on the CPU
    torch::Tensor span;      ///< [B] float: length - 1, on the keys' device (local-p's range)
    torch::Tensor h0, c0;    ///< [B, decoder_hidden] (c0 for LSTM cells only)
};

/// What the decoder did at each step t of a batch.
struct SeqSteps {
    torch::Tensor logits;   ///< [B, T, V]
    torch::Tensor alpha;    ///< [B, T, S] attention distribution over the source (0 at padding)
    torch::Tensor chosen;   ///< [B, T] int64: the source token a hard rule read (-1 under soft)
    torch::Tensor logProb;  ///< [B, T] log-probability of that choice (0 under soft)
    torch::Tensor entropy;  ///< [B, T] of alpha, nats
    torch::Tensor centre;   ///< [B, T] local-p's predicted position (undefined for other scorers)
    torch::Tensor tokens;   ///< [B, T] int64 emitted (decode) or read-ahead targets (teacher forcing)
    /// Transformers: every layer's and head's attention, [B, L, H, rows, columns].
    torch::Tensor encoderSelf, decoderSelf, cross;
};

class SeqNetBase : public torch::nn::Module {
public:
    /// source [B, S] int64 ids (kSeqPad after each row's length), lengths [B] int64 >= 1.
    virtual SeqEncoded encode(const torch::Tensor& source, const torch::Tensor& lengths) = 0;
    /// The source tokens' embedding rows [B, S, E], as the table holds them (before any scaling or
    /// positions): what attribution methods differentiate with respect to.
    virtual torch::Tensor embedSource(const torch::Tensor& source) = 0;
    /// encode() from `embedded` [B, S, E] (embedSource's rows, or any others) in place of the table's
    /// rows of `source`; autograd reaches `embedded`. Same results as encode() to float precision.
    virtual SeqEncoded encodeEmbedded(const torch::Tensor& embedded, const torch::Tensor& source,
                                      const torch::Tensor& lengths) = 0;
    /// Teacher forcing: `input` [B, T] starts with <s> and holds the target shifted right.
    virtual SeqSteps teacherForced(const SeqEncoded& enc, const torch::Tensor& input, const SelectionOptions& rule,
                                   Rng& rng) = 0;
    /// Greedy words for up to `maxSteps` steps.
    virtual SeqSteps decode(const SeqEncoded& enc, std::int64_t maxSteps, const SelectionOptions& rule, Rng& rng,
                            bool stopWhenDone = true) = 0;
    /// The permutation test along `tokens` (see SeqNetworkImpl); undefined where the network has
    /// no single attention distribution per step to shuffle.
    virtual torch::Tensor permutationDistance(const SeqEncoded& enc, const torch::Tensor& tokens,
                                              const SelectionOptions& rule, Rng& rng) = 0;
    virtual const SeqConfig& config() const = 0;
};

/// The start every encoder shares: checks source [B, S] and lengths [B] (each 1..S), and returns
/// an SeqEncoded with `lengths` (CPU) and `mask` (on the source's device) set.
SeqEncoded sourceLengths(const torch::Tensor& source, const torch::Tensor& lengths);

/// The network a config describes (recurrent or Transformer). Throws c10::Error on a bad config.
std::shared_ptr<SeqNetBase> makeSeqNet(const SeqConfig& config);

}  // namespace saccade
