#include "models/seq/seq_transformer.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "attention/qkv_capture.h"
#include "data/seq_task.h"

namespace saccade {

SeqAttentionImpl::SeqAttentionImpl(int dim, int heads) : m_heads(heads) {
    m_q = register_module("q", torch::nn::Linear(dim, dim));
    m_kv = register_module("kv", torch::nn::Linear(dim, 2 * dim));
    m_out = register_module("out", torch::nn::Linear(dim, dim));
}

torch::Tensor SeqAttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& memory, const torch::Tensor& keep,
                                        torch::Tensor* weights) {
    const auto B = query.size(0), Tq = query.size(1), Tk = memory.size(1), D = query.size(2);
    const auto d = D / m_heads;
    const auto q = m_q(query).view({B, Tq, m_heads, d}).transpose(1, 2);
    const auto kv = m_kv(memory).view({B, Tk, 2, m_heads, d});
    const auto k = kv.select(2, 0).transpose(1, 2), v = kv.select(2, 1).transpose(1, 2);
    if (!captureName.empty())
        QkvCapture::record(captureName, q, k, v, captureKind == QkvKind::CausalSelf ? torch::Tensor() : keep.squeeze(1), captureKind);
    auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(d));
    scores = scores.masked_fill(keep.unsqueeze(1).logical_not(), -std::numeric_limits<float>::infinity());
    const auto w = torch::softmax(scores, -1);
    if (weights) *weights = w;
    return m_out(torch::matmul(w, v).transpose(1, 2).reshape({B, Tq, D}));
}

namespace {

/// One pre-norm layer's parts, held in a ModuleList slot.
struct TransformerLayerImpl : torch::nn::Module {
    TransformerLayerImpl(int dim, int heads, int ff, bool decoder) {
        self = register_module("self", SeqAttention(dim, heads));
        norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
        if (decoder) {
            cross = register_module("cross", SeqAttention(dim, heads));
            norm2 = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
        }
        norm3 = register_module("norm3", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
        fc1 = register_module("fc1", torch::nn::Linear(dim, ff));
        fc2 = register_module("fc2", torch::nn::Linear(ff, dim));
    }
    SeqAttention self{nullptr}, cross{nullptr};
    torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
    torch::nn::Linear fc1{nullptr}, fc2{nullptr};
    torch::Tensor feedForward(const torch::Tensor& x) { return x + fc2(torch::gelu(fc1(norm3(x)))); }
};
TORCH_MODULE(TransformerLayer);

torch::Tensor sinusoids(std::int64_t length, std::int64_t dim, const torch::TensorOptions& options) {
    const auto pos = torch::arange(length, options).unsqueeze(1);
    const auto i = torch::arange(0, dim, 2, options);
    const auto angle = pos * torch::exp(-std::log(10000.0) * i / double(dim));
    auto pe = torch::zeros({length, dim}, options);
    pe.index_put_({torch::indexing::Slice(), torch::indexing::Slice(0, torch::indexing::None, 2)}, torch::sin(angle));
    pe.index_put_({torch::indexing::Slice(), torch::indexing::Slice(1, torch::indexing::None, 2)},
                  torch::cos(angle).narrow(1, 0, dim / 2));
    return pe;
}

}  // namespace

SeqTransformerImpl::SeqTransformerImpl(const SeqConfig& c) : m_config(c) {
    TORCH_CHECK(validateSeqConfig(c).ok() && c.transformer(), "invalid Transformer config");
    m_srcEmbed = register_module("src_embed", torch::nn::Embedding(c.sourceVocab, c.dim));
    m_tgtEmbed = register_module("tgt_embed", torch::nn::Embedding(c.targetVocab, c.dim));
    for (int l = 0; l < c.layers; ++l) {
        TransformerLayer encoderLayer(c.dim, c.heads, c.ff, false);
        encoderLayer->self->captureName = "encoder layer " + std::to_string(l + 1);
        m_encoder->push_back(encoderLayer);
        TransformerLayer decoderLayer(c.dim, c.heads, c.ff, true);
        decoderLayer->self->captureName = "decoder layer " + std::to_string(l + 1);
        decoderLayer->self->captureKind = QkvKind::CausalSelf;
        decoderLayer->cross->captureName = "cross layer " + std::to_string(l + 1);
        decoderLayer->cross->captureKind = QkvKind::Cross;
        m_decoder->push_back(decoderLayer);
    }
    register_module("encoder", m_encoder);
    register_module("decoder", m_decoder);
    m_encNorm = register_module("enc_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.dim})));
    m_decNorm = register_module("dec_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.dim})));
    m_out = register_module("out", torch::nn::Linear(c.dim, c.targetVocab));
}

torch::Tensor SeqTransformerImpl::embed(torch::nn::Embedding& table, const torch::Tensor& ids) {
    return positioned(table(ids));
}

torch::Tensor SeqTransformerImpl::positioned(const torch::Tensor& rows) const {
    const auto x = rows * std::sqrt(double(m_config.dim));
    return x + sinusoids(rows.size(1), m_config.dim, x.options()).unsqueeze(0);
}

SeqEncoded SeqTransformerImpl::encode(const torch::Tensor& source, const torch::Tensor& lengths) {
    return encodeEmbedded(m_srcEmbed(source), source, lengths);
}

SeqEncoded SeqTransformerImpl::encodeEmbedded(const torch::Tensor& embedded, const torch::Tensor& source,
                                              const torch::Tensor& lengths) {
    SeqEncoded e = sourceLengths(source, lengths);
    TORCH_CHECK(embedded.dim() == 3 && embedded.size(0) == source.size(0) && embedded.size(1) == source.size(1),
                "embedded must be [B, S, D]");
    auto x = positioned(embedded);
    std::vector<torch::Tensor> maps;
    for (const auto& module : *m_encoder) {
        auto layer = std::dynamic_pointer_cast<TransformerLayerImpl>(module);
        torch::Tensor w;
        x = x + layer->self(layer->norm1(x), layer->norm1(x), e.mask.unsqueeze(1), &w);
        x = layer->feedForward(x);
        maps.push_back(w);
    }
    e.keys = m_encNorm(x);
    e.prepared = torch::stack(maps, 1);  // the encoder's self-attention [B, L, H, S, S]
    return e;
}

SeqSteps SeqTransformerImpl::teacherForced(const SeqEncoded& enc, const torch::Tensor& input, const SelectionOptions& rule,
                                           Rng&) {
    TORCH_CHECK(rule.rule == SelectionRule::Soft, "a Transformer's attention is soft only");
    const auto T = input.size(1);
    const auto causal = torch::ones({T, T}, enc.mask.options()).tril().unsqueeze(0);
    auto y = embed(m_tgtEmbed, input);
    std::vector<torch::Tensor> selfMaps, crossMaps;
    for (const auto& module : *m_decoder) {
        auto layer = std::dynamic_pointer_cast<TransformerLayerImpl>(module);
        torch::Tensor ws, wc;
        const auto n1 = layer->norm1(y);
        y = y + layer->self(n1, n1, causal, &ws);
        y = y + layer->cross(layer->norm2(y), enc.keys, enc.mask.unsqueeze(1), &wc);
        y = layer->feedForward(y);
        selfMaps.push_back(ws);
        crossMaps.push_back(wc);
    }
    SeqSteps out;
    out.logits = m_out(m_decNorm(y));
    out.cross = torch::stack(crossMaps, 1);
    out.decoderSelf = torch::stack(selfMaps, 1);
    out.encoderSelf = enc.prepared;
    out.alpha = out.cross.select(1, m_config.layers - 1).mean(1);
    const auto logAlpha = out.alpha.clamp_min(1e-30).log();
    out.entropy = -(out.alpha * logAlpha).sum(-1);
    out.chosen = torch::full({input.size(0), T}, -1, input.options());
    out.logProb = torch::zeros({input.size(0), T}, out.alpha.options());
    return out;
}

SeqSteps SeqTransformerImpl::decode(const SeqEncoded& enc, std::int64_t maxSteps, const SelectionOptions& rule, Rng& rng,
                                    bool stopWhenDone) {
    const auto B = enc.keys.size(0);
    auto input = torch::full({B, 1}, kSeqStart, torch::TensorOptions().dtype(torch::kLong).device(enc.keys.device()));
    auto done = torch::zeros({B}, input.options().dtype(torch::kBool));
    torch::Tensor words;
    for (std::int64_t t = 0; t < maxSteps; ++t) {
        const auto word = teacherForced(enc, input, rule, rng).logits.select(1, t).argmax(-1);
        words = words.defined() ? torch::cat({words, word.unsqueeze(1)}, 1) : word.unsqueeze(1);
        input = torch::cat({input, word.unsqueeze(1)}, 1);
        if (!stopWhenDone) continue;
        done = done | (word == kSeqEnd);
        if (done.all().item<bool>()) break;
    }
    auto out = teacherForced(enc, input.narrow(1, 0, words.size(1)), rule, rng);
    out.tokens = words;
    return out;
}

}  // namespace saccade
