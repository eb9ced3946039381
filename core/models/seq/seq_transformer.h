#pragma once
// A small Transformer encoder-decoder (Vaswani et al. 2017) with pre-norm layers: token
// embeddings scaled by sqrt(d) plus sinusoidal positions; encoder layers of self-attention and a
// feed-forward block; decoder layers of causal self-attention, cross-attention over the encoder's
// output and a feed-forward block. Every layer's and head's attention is recorded: the encoder's
// self-attention (source x source), the decoder's (target x its inputs) and the cross-attention
// (target x source). The alignment of a step is the last layer's cross-attention, mean over
// heads. Attention is soft only.
// Engine header: includes LibTorch.

#include <string>

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "attention/qkv_capture.h"
#include "models/seq/seq_net.h"

namespace saccade {

/// Multi-head scaled dot-product attention with a keep-mask.
class SeqAttentionImpl : public torch::nn::Module {
public:
    SeqAttentionImpl(int dim, int heads);
    /// query [B, Tq, D], memory [B, Tk, D], keep [B, 1 or Tq, Tk] bool -> [B, Tq, D]; `weights`
    /// receives [B, H, Tq, Tk].
    torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& memory, const torch::Tensor& keep,
                          torch::Tensor* weights);
    /// Non-empty: the name under which forward() hands its queries, keys and values to a
    /// QkvCapture (attention/qkv_capture.h), as `captureKind`: "encoder layer N" (Self),
    /// "decoder layer N" (CausalSelf: its keep is the causal mask, recorded as undefined) and
    /// "cross layer N" (Cross), the names of the Sequences page's maps.
    std::string captureName;
    QkvKind captureKind = QkvKind::Self;

private:
    int m_heads;
    torch::nn::Linear m_q{nullptr}, m_kv{nullptr}, m_out{nullptr};
};
TORCH_MODULE(SeqAttention);

class SeqTransformerImpl : public SeqNetBase {
public:
    explicit SeqTransformerImpl(const SeqConfig& config);

    /// keys: the encoder's output [B, S, D]; encoderSelf: its attention [B, L, H, S, S].
    SeqEncoded encode(const torch::Tensor& source, const torch::Tensor& lengths) override;
    torch::Tensor embedSource(const torch::Tensor& source) override { return m_srcEmbed(source); }
    /// `embedded` scaled by sqrt(d), plus the positions, through the encoder.
    SeqEncoded encodeEmbedded(const torch::Tensor& embedded, const torch::Tensor& source,
                              const torch::Tensor& lengths) override;
    SeqSteps teacherForced(const SeqEncoded& enc, const torch::Tensor& input, const SelectionOptions& rule,
                           Rng& rng) override;
    /// Greedy, re-reading the whole prefix at every step; the record is that of the final prefix
    /// (causal attention: row t is what step t saw).
    SeqSteps decode(const SeqEncoded& enc, std::int64_t maxSteps, const SelectionOptions& rule, Rng& rng,
                    bool stopWhenDone = true) override;
    /// Undefined: a Transformer step has L x H distributions, not one to shuffle.
    torch::Tensor permutationDistance(const SeqEncoded&, const torch::Tensor&, const SelectionOptions&, Rng&) override {
        return {};
    }
    const SeqConfig& config() const override { return m_config; }

private:
    torch::Tensor embed(torch::nn::Embedding& table, const torch::Tensor& ids);
    /// Embedding rows [B, S, D] scaled by sqrt(d), plus the sinusoidal positions.
    torch::Tensor positioned(const torch::Tensor& rows) const;
    SeqConfig m_config;
    torch::nn::Embedding m_srcEmbed{nullptr}, m_tgtEmbed{nullptr};
    torch::nn::ModuleList m_encoder, m_decoder;  // per layer: attention(s), norms and feed-forward
    torch::nn::LayerNorm m_encNorm{nullptr}, m_decNorm{nullptr};
    torch::nn::Linear m_out{nullptr};
};

}  // namespace saccade
