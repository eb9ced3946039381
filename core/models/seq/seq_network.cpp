#include "models/seq/seq_network.h"

#include <limits>
#include <optional>
#include <vector>

#include <torch/nn/utils/rnn.h>
#include <torch/torch.h>

#include "attention/packed_linear.h"
#include "data/seq_task.h"
#include "models/deferred_weight_grads.h"
#include "models/seq/gru_encoder.h"
#include "models/rnn_gates.h"

namespace saccade {

namespace {
ScorerKind engineScorer(const std::string& name) {
    if (name == "local-p") return ScorerKind::General;  // Luong's local-p scores with the general form
    auto kind = parseScorerKind(name);
    TORCH_CHECK(kind.ok(), kind.ok() ? "" : kind.error());
    return *kind;
}
}  // namespace

SeqNetworkImpl::SeqNetworkImpl(const SeqConfig& c) : m_config(c) {
    TORCH_CHECK(validateSeqConfig(c).ok(), "invalid sequence model config");
    const int K = c.keyDim(), H = c.decoderHidden;
    const int G = (c.cell == "gru" ? 3 : 4) * H;
    m_srcEmbed = register_module("src_embed", torch::nn::Embedding(c.sourceVocab, c.embed));
    m_tgtEmbed = register_module("tgt_embed", torch::nn::Embedding(c.targetVocab, c.embed));
    if (c.cell == "gru")
        m_gru = register_module(
            "encoder", torch::nn::GRU(torch::nn::GRUOptions(c.embed, c.encoderHidden).batch_first(true).bidirectional(true)));
    else
        m_lstm = register_module(
            "encoder", torch::nn::LSTM(torch::nn::LSTMOptions(c.embed, c.encoderHidden).batch_first(true).bidirectional(true)));
    m_bridge = register_module("bridge", torch::nn::Linear(K, H));
    if (c.cell == "lstm") m_bridgeC = register_module("bridge_c", torch::nn::Linear(K, H));
    ScorerOptions so;
    so.kind = engineScorer(c.scorer);
    so.queryDim = H;
    so.keyDim = K;
    so.hiddenDim = c.attention;
    m_scorer = register_module("scorer", Scorer(so));
    if (c.localP()) {
        m_posHidden = register_module("pos_hidden", torch::nn::Linear(H, c.attention));
        m_posOut = register_module("pos_out", torch::nn::Linear(torch::nn::LinearOptions(c.attention, 1).bias(false)));
    }
    m_inEmbed = register_module("in_embed", torch::nn::Linear(c.embed, G));
    m_ctx = register_module("ctx", torch::nn::Linear(torch::nn::LinearOptions(K, G + c.targetVocab).bias(false)));
    m_hh = register_module("hh", torch::nn::Linear(H, G));
    m_outH = register_module("out_h", torch::nn::Linear(H, c.targetVocab));
}

SeqEncoded SeqNetworkImpl::encode(const torch::Tensor& source, const torch::Tensor& lengths) {
    // The step-by-step GRU with fused gates on the CPU; elsewhere ATen's (cuDNN's) own kernel.
    const bool fusedGru = m_gru && source.device().is_cpu() && m_srcEmbed->weight.scalar_type() == torch::kFloat;
    if (!fusedGru) return encodeEmbedded(m_srcEmbed(source), source, lengths);
    PackedWeightScope packOnce;  // the encoder's recurrent weights serve every position
    SeqEncoded e = sourceLengths(source, lengths);
    const bool padded = e.lengths.min().item<std::int64_t>() < source.size(1);
    e.keys = bidirectionalGru(m_gru, m_srcEmbed->weight, source, padded ? e.mask : torch::Tensor());
    finishEncode(e, source);
    return e;
}

SeqEncoded SeqNetworkImpl::encodeEmbedded(const torch::Tensor& emb, const torch::Tensor& source,
                                          const torch::Tensor& lengths) {
    SeqEncoded e = sourceLengths(source, lengths);
    const auto S = source.size(1);
    TORCH_CHECK(emb.dim() == 3 && emb.size(0) == source.size(0) && emb.size(1) == S, "embedded must be [B, S, E]");
    if (e.lengths.min().item<std::int64_t>() == S) {  // no padding: no packing
        e.keys = m_gru ? std::get<0>(m_gru(emb)) : std::get<0>(m_lstm(emb));
    } else {
        namespace rnn = torch::nn::utils::rnn;
        const auto packed = rnn::pack_padded_sequence(emb, e.lengths, /*batch_first=*/true, /*enforce_sorted=*/false);
        const auto out = m_gru ? std::get<0>(m_gru->forward_with_packed_input(packed))
                               : std::get<0>(m_lstm->forward_with_packed_input(packed));
        e.keys = std::get<0>(rnn::pad_packed_sequence(out, /*batch_first=*/true, /*padding_value=*/0.0, S));
    }
    finishEncode(e, source);
    return e;
}

void SeqNetworkImpl::finishEncode(SeqEncoded& e, const torch::Tensor& source) {
    const auto lenF = e.lengths.to(source.device(), e.keys.scalar_type());
    e.span = lenF - 1;
    const auto mean = e.keys.sum(1) / lenF.unsqueeze(1);  // padding rows of the keys are 0
    e.h0 = torch::tanh(m_bridge(mean));
    if (m_bridgeC) e.c0 = torch::tanh(m_bridgeC(mean));
    e.prepared = m_scorer->prepareKeys(e.keys);
}

torch::Tensor SeqNetworkImpl::scores(const State& st, const SeqEncoded& enc, torch::Tensor* centre) {
    auto sc = m_scorer->forwardPrepared(st.h, enc.prepared);
    auto keep = enc.mask;
    if (m_config.localP()) {
        const auto p = enc.span * torch::sigmoid(m_posOut(torch::tanh(m_posHidden(st.h)))).squeeze(-1);
        const auto offset = torch::arange(sc.size(1), sc.options()).unsqueeze(0) - p.unsqueeze(1);
        const double sigma = m_config.window / 2;
        sc = sc - offset.pow(2) / (2 * sigma * sigma);
        keep = keep & (offset.abs() <= m_config.window);
        if (centre) *centre = p;
    }
    return sc.masked_fill(keep.logical_not(), -std::numeric_limits<float>::infinity());
}

// The context product is deferred only where each step's context depends on the state (soft and
// gumbel weights come from the scores): a sampled or argmax context is rows of the keys, which
// do not depend on step 0, as DeferredWeightGrads requires.
struct SeqNetworkImpl::StepProducts {
    std::optional<DeferredWeightGrads> ctx;
    DeferredWeightGrads hh;
    StepProducts(const torch::Tensor& ctxWeight, const torch::Tensor& hhWeight, bool deferContext) : hh({hhWeight.t()}) {
        if (deferContext) ctx.emplace(std::vector<torch::Tensor>{ctxWeight.t()});
    }
};

torch::Tensor SeqNetworkImpl::advance(State& st, const torch::Tensor& gi, const torch::Tensor& context, StepProducts* products) {
    const auto G = gi.size(1);
    const auto n = context.size(0);
    const auto ctx = products && products->ctx
                         ? products->ctx->product(torch::zeros({n, m_ctx->weight.size(0)}, context.options()), {context})
                         : packedLinear(context, m_ctx->weight);
    const auto x = gi + ctx.narrow(1, 0, G);
    const auto gh = products ? products->hh.product(m_hh->bias.expand({n, m_hh->bias.size(0)}), {st.h})
                             : packedLinear(st.h, m_hh->weight, m_hh->bias);
    if (m_gru) {
        st.h = gruGates(x, gh, st.h);
    } else {
        std::tie(st.h, st.c) = lstmGates(x + gh, st.c);
    }
    return packedLinear(st.h, m_outH->weight, m_outH->bias) + ctx.narrow(1, G, ctx.size(1) - G);
}

torch::Tensor SeqNetworkImpl::advanceFromTable(State& st, const torch::Tensor& table, const torch::Tensor& word,
                                               const torch::Tensor& context) {
    const bool anyGrad = torch::GradMode::is_enabled() &&
                         (table.requires_grad() || context.requires_grad() || st.h.requires_grad() ||
                          m_ctx->weight.requires_grad() || m_hh->weight.requires_grad() || m_hh->bias.requires_grad());
    const bool fused = m_gru && table.device().is_cpu() && table.scalar_type() == torch::kFloat && !anyGrad;
    if (!fused) return advance(st, table.index_select(0, word), context);
    // Inference: the word's row of the table, the context's part of the gates and the hidden
    // bias are added inside the gate loop.
    const auto G = table.size(1);
    const auto ctx = packedLinear(context, m_ctx->weight);
    auto next = torch::empty_like(st.h);
    gruGatesFromTable({table, word, ctx.narrow(1, 0, G), packedLinear(st.h, m_hh->weight), m_hh->bias, st.h, {}}, next);
    st.h = next;
    return packedLinear(st.h, m_outH->weight, m_outH->bias) + ctx.narrow(1, G, ctx.size(1) - G);
}

namespace {
struct StepLog {
    std::vector<torch::Tensor> logits, alpha, chosen, logProb, entropy, centre, tokens;
    void add(const Selection& s, const torch::Tensor& lg, const torch::Tensor& centreT) {
        logits.push_back(lg);
        alpha.push_back(s.probs);
        chosen.push_back(s.indices.size(1) == 1 ? s.indices.squeeze(1) : torch::full({lg.size(0)}, -1, s.indices.options()));
        logProb.push_back(s.logProb);
        entropy.push_back(s.entropy);
        if (centreT.defined()) centre.push_back(centreT);
    }
    SeqSteps stack() const {
        SeqSteps out;
        out.logits = torch::stack(logits, 1);
        out.alpha = torch::stack(alpha, 1);
        out.chosen = torch::stack(chosen, 1);
        out.logProb = torch::stack(logProb, 1);
        out.entropy = torch::stack(entropy, 1);
        if (!centre.empty()) out.centre = torch::stack(centre, 1);
        if (!tokens.empty()) out.tokens = torch::stack(tokens, 1);
        return out;
    }
};
}  // namespace

SeqSteps SeqNetworkImpl::teacherForced(const SeqEncoded& enc, const torch::Tensor& input, const SelectionOptions& rule,
                                       Rng& rng) {
    TORCH_CHECK(input.dim() == 2 && input.size(0) == enc.keys.size(0), "input must be [B, T]");
    // unbind, not select(1, t): each select's backward would fill a zero tensor of the whole [B, T, G]
    const auto gi = m_inEmbed(m_tgtEmbed(input)).unbind(1);
    State st{enc.h0, enc.c0};
    StepLog log;
    // The context and hidden weights' gradients: one product over every step's rows each.
    std::optional<StepProducts> products;
    if (m_deferGrads)
        products.emplace(m_ctx->weight, m_hh->weight, rule.rule == SelectionRule::Soft || rule.rule == SelectionRule::Gumbel);
    for (std::int64_t t = 0; t < input.size(1); ++t) {
        torch::Tensor centre;
        const auto sel = select(scores(st, enc, &centre), enc.keys, rule, rng);
        log.add(sel, advance(st, gi[static_cast<std::size_t>(t)], sel.context, products ? &*products : nullptr), centre);
    }
    return log.stack();
}

SeqSteps SeqNetworkImpl::decode(const SeqEncoded& enc, std::int64_t maxSteps, const SelectionOptions& rule, Rng& rng,
                                bool stopWhenDone) {
    const auto B = enc.keys.size(0);
    PackedWeightScope packOnce;  // the decoder's weights serve every step
    const auto table = m_inEmbed(m_tgtEmbed->weight);  // [V, G]: every word's input gates
    auto word = torch::full({B}, kSeqStart, torch::TensorOptions().dtype(torch::kLong).device(enc.keys.device()));
    auto done = torch::zeros({B}, word.options().dtype(torch::kBool));
    State st{enc.h0, enc.c0};
    StepLog log;
    for (std::int64_t t = 0; t < maxSteps; ++t) {
        torch::Tensor centre;
        const auto sel = select(scores(st, enc, &centre), enc.keys, rule, rng);
        const auto logits = advanceFromTable(st, table, word, sel.context);
        log.add(sel, logits, centre);
        word = logits.argmax(-1);
        log.tokens.push_back(word);
        if (!stopWhenDone) continue;
        done = done | (word == kSeqEnd);
        if (done.all().item<bool>()) break;
    }
    return log.stack();
}

torch::Tensor SeqNetworkImpl::permutationDistance(const SeqEncoded& enc, const torch::Tensor& tokens,
                                                  const SelectionOptions& rule, Rng& rng) {
    const auto B = tokens.size(0), T = tokens.size(1), S = enc.keys.size(1);
    const auto start = torch::full({B, 1}, kSeqStart, tokens.options());
    const auto input = torch::cat({start, tokens.narrow(1, 0, T - 1)}, 1);
    const auto gi = m_inEmbed(m_tgtEmbed(input));
    State st{enc.h0, enc.c0};
    std::vector<torch::Tensor> tv;
    const bool hardRule = rule.rule != SelectionRule::Soft;
    for (std::int64_t t = 0; t < T; ++t) {
        const auto sel = select(scores(st, enc, nullptr), enc.keys, rule, rng);
        // One random order of each row's real tokens: padding sorts last (key 2 > any uniform).
        const auto order = rng.uniform({B, S}, enc.keys.device()).masked_fill(enc.mask.logical_not(), 2.0).argsort(std::int64_t{1});
        // Soft: the weights themselves shuffled; hard: the one-hot of the token read, moved with them.
        const auto shuffled = (hardRule ? sel.weights : sel.probs).gather(1, order);
        const auto ctx = torch::bmm(shuffled.unsqueeze(1), enc.keys).squeeze(1);
        State other = st;
        const auto pShuffled = torch::softmax(advance(other, gi.select(1, t), ctx), -1);
        const auto p = torch::softmax(advance(st, gi.select(1, t), sel.context), -1);
        tv.push_back(0.5 * (p - pShuffled).abs().sum(-1));
    }
    return torch::stack(tv, 1);
}

}  // namespace saccade
