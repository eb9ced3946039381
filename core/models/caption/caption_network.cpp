#include "models/caption/caption_network.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <torch/torch.h>

#include "attention/packed_linear.h"
#include "models/rnn_gates.h"

namespace saccade {

namespace nn = torch::nn;

struct CaptionNetworkImpl::State {
    torch::Tensor values;    // [B, L, D]
    torch::Tensor prepared;  // the scorer's query-independent part of the keys
    torch::Tensor h, c;      // [B, H]
    // The LSTM's weights on the gated context and on h, transposed once per caption batch: a
    // narrow() per step would cost a full-size gradient per step in the backward pass.
    torch::Tensor contextWeights, hiddenWeights;  // [D, 4H], [H, 4H]
    // Single-cell decoding without gradients: the chosen context is one annotation row a_i, so
    // what the LSTM's input weights and the deep output make of it is a table over the cells,
    // computed once per image (and of each word, once per vocabulary).
    torch::Tensor cellGates;   // [B0, L, 4H]: W_ih[:, E:] a_i
    torch::Tensor cellOut;     // [B0, L, E]: L_z a_i (without bias)
    torch::Tensor wordGates;   // [V, 4H]: W_ih[:, :E] E_w + b_ih + b_hh
    torch::Tensor imageOfRow;  // [B] int64: the image (row of cellGates) of each row
    // Where the packed products run: hiddenWeights and L_h packed once, so that a step writes its
    // gates and its deep output each in one pass over the tables and adds the product into it.
    PackedOperand hiddenPacked, outHPacked;
    torch::Tensor outBias;  // [E]: L_h's bias + L_z's
};

namespace {

/// The steps' selections stacked along time (the caller fills wordLogits).
CaptionSteps stackSteps(const std::vector<Selection>& selections) {
    std::vector<torch::Tensor> probs, indices, logProb, entropy;
    for (const auto& s : selections) {
        probs.push_back(s.probs);
        indices.push_back(s.indices);
        logProb.push_back(s.logProb);
        entropy.push_back(s.entropy);
    }
    return {torch::Tensor(), torch::stack(probs), torch::stack(indices), torch::stack(logProb), torch::stack(entropy)};
}

}  // namespace

CaptionNetworkImpl::CaptionNetworkImpl(const CaptionConfig& config) : m_config(config) {
    auto valid = validateCaptionConfig(config);
    TORCH_CHECK(valid.ok(), "invalid captioner config: ", valid.error());
    // Three conv stages, each followed by a 2x2 pool while the image is larger than the grid,
    // then one to D at grid resolution. Wide (5x5, 3x3, 3x3, 3x3): at grid 8 on 64 px a cell's
    // receptive field is 40 px, so it covers its neighbours. Local (3x3, 3x3, 1x1, 1x1; wider
    // stages): 14 px, the cell's own 8 and 3 on each side, so the decoder must look at an object
    // to name it.
    const bool local = config.encoder == "local";
    const std::array<int, 5> widths = {config.inChannels, local ? 32 : 16, local ? 64 : 32, 64, config.featureDim};
    const std::array<int, 4> kernels = local ? std::array<int, 4>{3, 3, 1, 1} : std::array<int, 4>{5, 3, 3, 3};
    int pools = int(std::lround(std::log2(double(config.imageSize / config.grid))));
    nn::Sequential encoder;
    for (int s = 0; s < 4; ++s) {
        encoder->push_back(nn::Conv2d(nn::Conv2dOptions(widths[s], widths[s + 1], kernels[s]).padding(kernels[s] / 2)));
        encoder->push_back(nn::ReLU());
        if (s < 3 && pools-- > 0) encoder->push_back(nn::MaxPool2d(2));
    }
    m_encoder = register_module("encoder", encoder);
    if (config.cellPositions)
        m_position = register_parameter(
            "position", torch::randn({std::int64_t(config.grid) * config.grid, config.featureDim}) * 0.1);

    ScorerOptions so;
    so.kind = *parseScorerKind(config.scorer);
    so.queryDim = config.hidden;
    so.keyDim = config.featureDim;
    so.hiddenDim = config.attnHidden;
    m_scorer = register_module("scorer", Scorer(so));
    const auto V = static_cast<std::int64_t>(config.vocabulary.size());
    m_embed = register_module("embed", nn::Embedding(V, config.embed));
    m_rnn = register_module("rnn", nn::LSTMCell(config.embed + config.featureDim, config.hidden));
    m_initH = register_module("init_h", nn::Linear(config.featureDim, config.hidden));
    m_initC = register_module("init_c", nn::Linear(config.featureDim, config.hidden));
    // The gate is a scalar per step, as in the paper (section 4.2.1): it lets the decoder say how
    // much it relies on the image for this word, and keeps chosen contexts exact rows of a.
    m_beta = register_module("beta", nn::Linear(config.hidden, 1));
    m_outH = register_module("out_h", nn::Linear(config.hidden, config.embed));
    m_outZ = register_module("out_z", nn::Linear(config.featureDim, config.embed));
    m_out = register_module("out", nn::Linear(config.embed, V));
}

torch::Tensor CaptionNetworkImpl::encode(const torch::Tensor& images, torch::Tensor* gridOut) {
    TORCH_CHECK(images.dim() == 4 && images.size(1) == m_config.inChannels && images.size(2) == m_config.imageSize &&
                    images.size(3) == m_config.imageSize,
                "the captioner takes [B, ", m_config.inChannels, ", ", m_config.imageSize, ", ", m_config.imageSize,
                "] images, got ", images.sizes());
    if (m_clock) m_clock->start();
    const auto grid = m_encoder->forward(images);  // [B, D, g, g]
    if (gridOut) *gridOut = grid;
    auto annotations = grid.flatten(/*start_dim=*/2).transpose(1, 2);
    annotations = m_position.defined() ? annotations + m_position : annotations.contiguous();
    lapIf(m_clock, "encoder");
    return annotations;
}

CaptionNetworkImpl::State CaptionNetworkImpl::start(const torch::Tensor& annotations, std::int64_t episodes) {
    TORCH_CHECK(annotations.dim() == 3 && annotations.size(2) == m_config.featureDim,
                "captioner: annotations must be [B, L, ", m_config.featureDim, "], got ", annotations.sizes());
    TORCH_CHECK(episodes == 1 || annotations.size(0) == 1, "captioner: episodes > 1 needs a single image");
    auto share = [&](const torch::Tensor& x) {
        if (episodes == 1) return x;
        std::vector<std::int64_t> sizes(x.sizes().begin(), x.sizes().end());
        sizes[0] = episodes;
        return x.expand(sizes);
    };
    State s;
    s.values = share(annotations);
    s.prepared = share(m_scorer->prepareKeys(annotations));  // once per image, not per word
    const auto mean = annotations.mean(/*dim=*/1);
    s.h = share(torch::tanh(m_initH(mean)));
    s.c = share(torch::tanh(m_initC(mean)));
    s.contextWeights = m_rnn->weight_ih.narrow(1, m_config.embed, m_config.featureDim).t();
    s.hiddenWeights = m_rnn->weight_hh.t();
    lapIf(m_clock, "decoder");
    return s;
}

torch::Tensor CaptionNetworkImpl::wordGates(const torch::Tensor& embedded) {
    return packedLinear(embedded, m_rnn->weight_ih.narrow(1, 0, m_config.embed), m_rnn->bias_ih + m_rnn->bias_hh);
}

torch::Tensor CaptionNetworkImpl::advance(State& st, const torch::Tensor& gates, const SelectionOptions& rule, Rng& rng,
                                          const torch::Tensor& useExpectation, Selection* out,
                                          DeferredWeightGrads* products) {
    const auto scores = m_scorer->forwardPrepared(st.h, st.prepared);
    lapIf(m_clock, "scoring");
    auto s = saccade::select(scores, st.values, rule, rng);
    lapIf(m_clock, "selection");
    auto context = s.context;
    if (useExpectation.defined()) {
        const auto expected = torch::bmm(s.probs.unsqueeze(1), st.values).squeeze(1);
        context = torch::where(useExpectation.unsqueeze(1), expected, context);
    }
    const auto gated = torch::sigmoid(m_beta(st.h)) * context;
    // The LSTM cell on [embedded, gated]: the words' part of W_ih x comes in `gates`.
    const auto all = products ? products->product(gates, {gated, st.h})
                              : torch::addmm(torch::addmm(gates, gated, st.contextWeights), st.h, st.hiddenWeights);
    std::tie(st.h, st.c) = lstmGates(all, st.c);
    *out = std::move(s);
    return gated;
}

torch::Tensor CaptionNetworkImpl::output(const torch::Tensor& embedded, const torch::Tensor& h, const torch::Tensor& gated) {
    auto deep = embedded + packedLinear(h, m_outH->weight, m_outH->bias) + packedLinear(gated, m_outZ->weight, m_outZ->bias);
    deep = nn::functional::dropout(deep, nn::functional::DropoutFuncOptions().p(m_config.dropout).training(is_training()));
    return packedLinear(deep, m_out->weight, m_out->bias);
}

torch::Tensor CaptionNetworkImpl::step(State& st, const torch::Tensor& embedded, const torch::Tensor& gates,
                                       const SelectionOptions& rule, Rng& rng, const torch::Tensor& useExpectation,
                                       Selection* out) {
    const auto gated = advance(st, gates, rule, rng, useExpectation, out);
    auto logits = output(embedded, st.h, gated);
    lapIf(m_clock, "decoder");
    return logits;
}

torch::Tensor CaptionNetworkImpl::stepSingleCell(State& st, const torch::Tensor& word, const SelectionOptions& rule,
                                                 Rng& rng, Selection* out) {
    const auto scores = m_scorer->forwardPrepared(st.h, st.prepared);
    lapIf(m_clock, "scoring");
    auto s = saccade::select(scores, st.values, rule, rng);
    lapIf(m_clock, "selection");
    const auto cell = s.indices.select(1, 0);
    const auto beta = torch::sigmoid(m_beta(st.h));  // [B, 1]
    torch::Tensor deep;
    if (st.hiddenPacked.packed.defined() && st.outHPacked.packed.defined()) {
        // The same sums, each written once: table rows, then the product added in place.
        const auto B = st.h.size(0), L = st.cellGates.size(1), E = st.cellOut.size(2);
        const auto cellRow = st.imageOfRow * L + cell;
        auto gates = torch::empty({B, st.cellGates.size(2)}, st.h.options());
        tableRowsInto(st.wordGates, word, st.cellGates.view({-1, gates.size(1)}), cellRow, beta, {}, gates);
        multiplyInto(st.h, st.hiddenPacked, gates, /*accumulate=*/true);
        std::tie(st.h, st.c) = lstmGates(gates, st.c);
        deep = torch::empty({B, E}, st.h.options());
        tableRowsInto(m_embed->weight, word, st.cellOut.view({-1, E}), cellRow, beta, st.outBias, deep);
        multiplyInto(st.h, st.outHPacked, deep, /*accumulate=*/true);
    } else {
        const auto gates = st.wordGates.index_select(0, word) + beta * st.cellGates.index({st.imageOfRow, cell}) +
                           packedMm(st.h, st.hiddenWeights);
        std::tie(st.h, st.c) = lstmGates(gates, st.c);
        deep = m_embed->weight.index_select(0, word) + packedLinear(st.h, m_outH->weight, m_outH->bias) +
               beta * st.cellOut.index({st.imageOfRow, cell}) + m_outZ->bias;
    }
    auto logits = packedLinear(deep, m_out->weight, m_out->bias);  // eval mode: no dropout
    lapIf(m_clock, "decoder");
    *out = std::move(s);
    return logits;
}

CaptionSteps CaptionNetworkImpl::teacherForced(const torch::Tensor& annotations, const torch::Tensor& tokens,
                                               const SelectionOptions& rule, Rng& rng,
                                               const torch::Tensor& useExpectation) {
    TORCH_CHECK(tokens.dim() == 2 && tokens.size(0) == annotations.size(0) && tokens.size(1) >= 2,
                "captioner: tokens must be [B, T + 1] for ", annotations.size(0), " images, got ", tokens.sizes());
    TORCH_CHECK(!useExpectation.defined() || useExpectation.sizes() == torch::IntArrayRef{tokens.size(0)},
                "captioner: useExpectation must be [B]");
    const auto B = tokens.size(0), T = tokens.size(1) - 1;
    // Steps each row takes (its targets before <pad>), longest first, as in the tutorials' packing.
    const auto stepsOfRow = (tokens.narrow(1, 1, T) != kPadToken).sum(1).to(torch::kCPU);
    const auto order = std::get<1>(stepsOfRow.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true));
    const auto sortedSteps = stepsOfRow.index_select(0, order);
    const auto* rowSteps = sortedSteps.data_ptr<std::int64_t>();
    const auto orderHere = order.to(tokens.device());
    const auto sortedTokens = tokens.index_select(0, orderHere);
    const auto sortedMix = useExpectation.defined() ? useExpectation.index_select(0, orderHere) : torch::Tensor();
    auto st = start(annotations.index_select(0, orderHere), 1);
    const auto embedded = m_embed(sortedTokens);  // [B, T + 1, E], every word at once
    // unbind, not select(1, t): each select's backward would fill a zero tensor of the whole batch
    const auto gates = wordGates(embedded.reshape({B * (T + 1), m_config.embed})).view({B, T + 1, 4 * m_config.hidden}).unbind(1);
    SelectionOptions checked = rule;
    checked.checkFinite = false;  // scores come from finite weights; skip the device sync
    // The output layer does not feed the recurrence: it runs once after the loop on every live
    // row of every step (hs, gated), and index_copy puts each row's logits at step t, in the
    // caller's row order (target t * B + order[r]); rows past their end keep zeros.
    std::vector<torch::Tensor> hs, gated;
    std::vector<std::int64_t> source, target;  // rows of embedded [T + 1, B] (sorted), of the logits [T, B]
    const auto* orderOf = order.data_ptr<std::int64_t>();
    std::vector<Selection> selections;
    // The cell's weight gradients: one product over every step's rows (models/deferred_weight_grads.h).
    DeferredWeightGrads products({st.contextWeights, st.hiddenWeights});
    for (std::int64_t t = 0; t < T; ++t) {
        std::int64_t rows = 0;
        while (rows < B && rowSteps[rows] > t) ++rows;
        if (rows < st.h.size(0)) {  // some captions have ended: keep the others
            const auto keep = std::max<std::int64_t>(rows, 1);
            st.values = st.values.narrow(0, 0, keep);
            st.prepared = st.prepared.narrow(0, 0, keep);
            st.h = st.h.narrow(0, 0, keep);
            st.c = st.c.narrow(0, 0, keep);
        }
        const auto n = st.h.size(0);
        const auto mix = sortedMix.defined() ? sortedMix.narrow(0, 0, n) : torch::Tensor();
        Selection s;
        const auto g = advance(st, gates[size_t(t)].narrow(0, 0, n), checked, rng, mix, &s, m_deferGrads ? &products : nullptr);
        const auto live = rows == 0 ? 0 : n;  // with no row left, the one kept is not read
        if (live > 0) {
            hs.push_back(st.h);
            gated.push_back(g);
            for (std::int64_t r = 0; r < live; ++r) {
                source.push_back(t * B + r);
                target.push_back(t * B + orderOf[r]);
            }
        }
        if (n < B || rows == 0) {  // rows past their end (or, with none left, every row) give zeros
            auto pad = [&](const torch::Tensor& x) {
                auto shape = x.sizes().vec();
                shape[0] = B - live;
                return torch::cat({x.narrow(0, 0, live), torch::zeros(shape, x.options())});
            };
            s.probs = pad(s.probs);
            s.indices = pad(s.indices);
            s.logProb = pad(s.logProb);
            s.entropy = pad(s.entropy);
        }
        selections.push_back(std::move(s));
    }
    auto out = stackSteps(selections);
    const auto V = m_out->weight.size(0);
    out.wordLogits = torch::zeros({T * B, V}, embedded.options());
    if (!source.empty()) {
        const auto ids = torch::TensorOptions().dtype(torch::kLong);
        const auto sourceRows = torch::tensor(source, ids).to(tokens.device());
        const auto targetRows = torch::tensor(target, ids).to(tokens.device());
        const auto wordsRead = embedded.transpose(0, 1).reshape({(T + 1) * B, m_config.embed}).index_select(0, sourceRows);
        out.wordLogits = out.wordLogits.index_copy(0, targetRows, output(wordsRead, torch::cat(hs), torch::cat(gated)));
    }
    out.wordLogits = out.wordLogits.view({T, B, V});
    const auto back = torch::argsort(orderHere);  // to the caller's row order
    out.probs = out.probs.index_select(1, back);
    out.indices = out.indices.index_select(1, back);
    out.logProb = out.logProb.index_select(1, back);
    out.entropy = out.entropy.index_select(1, back);
    return out;
}

DecodedCaptions CaptionNetworkImpl::decode(const torch::Tensor& annotations, const SelectionOptions& rule, Rng& rng,
                                           double wordTemperature, Rng* wordRng, std::int64_t episodes) {
    TORCH_CHECK(wordTemperature >= 0 && std::isfinite(wordTemperature), "word temperature must be finite and >= 0");
    TORCH_CHECK(wordTemperature == 0 || wordRng, "sampled words need a word random stream");
    PackedWeightScope packOnce;  // the decoder's weights serve every word
    auto st = start(annotations, episodes);
    const auto B = st.h.size(0);
    const auto options = torch::TensorOptions().dtype(torch::kLong).device(annotations.device());
    // Hard rules at inference read one annotation row per word: use the per-cell tables.
    const bool singleCell = (rule.rule == SelectionRule::Sample || rule.rule == SelectionRule::Argmax) &&
                            !is_training() && !torch::GradMode::is_enabled();
    if (singleCell) {
        st.cellGates = torch::matmul(annotations, st.contextWeights);
        st.cellOut = torch::matmul(annotations, m_outZ->weight.t());
        st.wordGates = wordGates(m_embed->weight);
        st.imageOfRow = episodes > 1 ? torch::zeros({B}, options) : torch::arange(B, options);
        st.hiddenPacked = packOperand(st.hiddenWeights, /*asWeight=*/false);
        st.outHPacked = packOperand(m_outH->weight, /*asWeight=*/true);
        st.outBias = m_outH->bias + m_outZ->bias;
        lapIf(m_clock, "decoder");
    }
    auto word = torch::full({B}, kStartToken, options);
    auto done = torch::zeros({B}, options.dtype(torch::kBool));
    SelectionOptions checked = rule;
    checked.checkFinite = false;
    const auto notWords = torch::tensor({std::int64_t(kStartToken), std::int64_t(kPadToken)}, options);
    std::vector<torch::Tensor> logits, words, wordLogProb;
    std::vector<Selection> selections;
    for (int t = 0; t + 1 < m_config.maxLength; ++t) {
        Selection s;
        // A caption never says <start> or <pad>: they are not words.
        const auto embedded = singleCell ? torch::Tensor() : m_embed(word);
        const auto l = (singleCell ? stepSingleCell(st, word, checked, rng, &s)
                                   : step(st, embedded, wordGates(embedded), checked, rng, {}, &s))
                           .index_fill(1, notWords, -INFINITY);
        const auto logp = torch::log_softmax(l, -1);
        torch::Tensor next;
        if (wordTemperature > 0) {
            const auto p = torch::softmax(l / wordTemperature, -1);
            next = drawCategorical(p, wordRng->uniform({B, 1}, p.device())).squeeze(1);
        } else {
            next = l.argmax(-1);
        }
        // Rows that have finished emit <pad> from now on.
        next = torch::where(done, torch::full_like(next, kPadToken), next);
        const auto chosen = logp.gather(1, next.unsqueeze(1)).squeeze(1);  // -inf for a finished row's <pad>
        wordLogProb.push_back(torch::where(done, torch::zeros_like(chosen), chosen));
        done = done.logical_or(next == kEndToken);
        logits.push_back(l);
        words.push_back(next);
        selections.push_back(std::move(s));
        word = next;
        if (done.all().item<bool>()) break;
    }
    DecodedCaptions d;
    d.tokens = torch::stack(words, /*dim=*/1);
    const auto isEnd = (d.tokens == kEndToken).to(torch::kLong);
    // The position of the first <end>, or T when there is none.
    const auto T = d.tokens.size(1);
    const auto positions = torch::arange(T, options).unsqueeze(0).expand({B, T});
    d.lengths = torch::where(isEnd.to(torch::kBool), positions, torch::full_like(positions, T)).amin(1);
    d.wordLogProb = torch::stack(wordLogProb);
    d.steps = stackSteps(selections);
    d.steps.wordLogits = torch::stack(logits);
    return d;
}

std::vector<BeamCaption> CaptionNetworkImpl::beamSearch(const torch::Tensor& annotations, int beam,
                                                        const SelectionOptions& rule) {
    TORCH_CHECK(annotations.size(0) == 1, "beam search takes one image");
    TORCH_CHECK(beam >= 1 && beam <= 100, "the beam width must be 1..100, got ", beam);
    TORCH_CHECK(rule.rule == SelectionRule::Soft || rule.rule == SelectionRule::Argmax,
                "beam search needs a deterministic location rule (soft or argmax)");
    auto st = start(annotations, 1);
    const auto device = annotations.device();
    const auto V = static_cast<std::int64_t>(m_config.vocabulary.size());
    std::vector<BeamCaption> live(1), finished;
    Rng unused(0);
    for (int t = 0; t + 1 < m_config.maxLength && !live.empty(); ++t) {
        std::vector<std::int64_t> last;
        for (const auto& b : live) last.push_back(b.tokens.empty() ? kStartToken : b.tokens.back());
        Selection s;
        const auto embedded = m_embed(torch::tensor(last, torch::TensorOptions().dtype(torch::kLong).device(device)));
        const auto logits = step(st, embedded, wordGates(embedded), rule, unused, {}, &s);
        const auto notWords = torch::tensor({std::int64_t(kStartToken), std::int64_t(kPadToken)},
                                            torch::TensorOptions().dtype(torch::kLong).device(device));
        const auto logp = torch::log_softmax(logits.index_fill(1, notWords, -INFINITY), -1).to(torch::kCPU, torch::kDouble);
        const auto wordProbs = logp.exp();
        std::vector<double> base;
        for (const auto& b : live) base.push_back(b.logProb);
        const auto total = logp + torch::tensor(base, torch::kDouble).unsqueeze(1);
        const int keep = std::min<std::int64_t>(beam - std::int64_t(finished.size()), total.numel());
        if (keep <= 0) break;
        const auto top = std::get<1>(total.flatten().topk(std::min<std::int64_t>(2 * beam, total.numel())));
        std::vector<BeamCaption> next;
        std::vector<std::int64_t> rows;
        for (std::int64_t k = 0; k < top.size(0) && int(next.size()) < keep; ++k) {
            const auto flat = top[k].item<std::int64_t>();
            const auto row = flat / V, word = flat % V;
            if (word == kPadToken || word == kStartToken) continue;
            BeamCaption b = live[size_t(row)];
            b.tokens.push_back(word);
            b.logProb = total.flatten()[flat].item<double>();
            b.probs.push_back(s.probs[row].to(torch::kCPU));
            b.indices.push_back(s.indices[row].to(torch::kCPU));
            b.wordProbs.push_back(wordProbs[row].to(torch::kFloat));
            if (word == kEndToken) {
                finished.push_back(std::move(b));
            } else {
                next.push_back(std::move(b));
                rows.push_back(row);
            }
        }
        if (next.empty()) break;
        const auto index = torch::tensor(rows, torch::TensorOptions().dtype(torch::kLong).device(device));
        st.h = st.h.index_select(0, index);
        st.c = st.c.index_select(0, index);
        st.values = annotations.expand({index.size(0), -1, -1});
        st.prepared = st.prepared.index_select(0, torch::zeros_like(index));
        live = std::move(next);
    }
    // Hypotheses cut by the length limit still count, after every finished one.
    for (auto& b : live) finished.push_back(std::move(b));
    std::stable_sort(finished.begin(), finished.end(), [](const BeamCaption& a, const BeamCaption& b) {
        const bool aEnd = !a.tokens.empty() && a.tokens.back() == kEndToken;
        const bool bEnd = !b.tokens.empty() && b.tokens.back() == kEndToken;
        if (aEnd != bEnd) return aEnd;
        return a.logProb > b.logProb;
    });
    return finished;
}

}  // namespace saccade
