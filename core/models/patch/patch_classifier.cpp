#include "models/patch/patch_classifier.h"

#include <torch/torch.h>

#include "models/conv_pool_relu.h"
#include "models/path_pooling.h"

namespace saccade {

namespace nn = torch::nn;

namespace {
constexpr int kCheapDim = 16;  // features per cell of the select variant's cheap pass

PatchOutput stackSteps(const std::vector<torch::Tensor>& stepLogits, const std::vector<torch::Tensor>& probs,
                       const std::vector<torch::Tensor>& indices, const std::vector<torch::Tensor>& logProb,
                       const std::vector<torch::Tensor>& entropy) {
    PatchOutput out;
    out.stepLogits = torch::stack(stepLogits);
    out.logits = stepLogits.back();
    out.probs = torch::stack(probs);
    out.indices = torch::stack(indices);
    out.logProb = torch::stack(logProb);
    out.entropy = torch::stack(entropy);
    return out;
}

}  // namespace

PatchClassifierImpl::PatchClassifierImpl(const PatchConfig& config) : m_config(config) {
    auto valid = validatePatchConfig(config);
    TORCH_CHECK(valid.ok(), "invalid patch model config: ", valid.error());
    const int halfCell = config.imageSize / 2 / config.grid;  // pooling that makes cells exact
    // Receptive field of a cell feature: 38 px for 60x60 inputs, most of a 28-px object.
    const bool select = config.variant == "select";
    if (!select) {
        m_encoder = register_module(
            "encoder",
            nn::Sequential(nn::Conv2d(nn::Conv2dOptions(config.inChannels, 16, 5).padding(2)),
                           nn::ReLU(), nn::MaxPool2d(2),
                           nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)), nn::ReLU(),
                           nn::MaxPool2d(halfCell),
                           nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)), nn::ReLU(),
                           nn::Conv2d(nn::Conv2dOptions(64, config.featureDim, 3).padding(1)),
                           nn::ReLU()));
    } else {
        // The cheap pass sees the image at half resolution with 8 and 16 channels: about a
        // tenth of the dense encoder's multiply-adds.
        m_encoder = register_module(
            "encoder",
            nn::Sequential(nn::AvgPool2d(2),
                           nn::Conv2d(nn::Conv2dOptions(config.inChannels, 8, 3).padding(1)),
                           nn::ReLU(), nn::MaxPool2d(halfCell),
                           nn::Conv2d(nn::Conv2dOptions(8, kCheapDim, 3).padding(1)), nn::ReLU()));
        m_patchNet = register_module(
            "patch_net",
            nn::Sequential(nn::Conv2d(nn::Conv2dOptions(config.inChannels, 16, 5).padding(2)),
                           nn::ReLU(), nn::MaxPool2d(2),
                           nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)), nn::ReLU(),
                           nn::MaxPool2d(2),
                           nn::Conv2d(nn::Conv2dOptions(32, config.featureDim, 3).padding(1)),
                           nn::ReLU(), nn::AdaptiveMaxPool2d(1), nn::Flatten()));
    }
    ScorerOptions so;
    so.kind = *parseScorerKind(config.scorer);
    so.queryDim = config.hidden;
    so.keyDim = select ? kCheapDim : config.featureDim;
    so.hiddenDim = config.attnHidden;
    m_scorer = register_module("scorer", Scorer(so));
    m_rnn = register_module("rnn", nn::LSTMCell(config.featureDim, config.hidden));
    m_initH = register_module("init_h", nn::Linear(so.keyDim, config.hidden));
    m_initC = register_module("init_c", nn::Linear(so.keyDim, config.hidden));
    m_gate = register_module("gate", nn::Linear(config.hidden, 1));
    m_classifier = register_module("classifier", nn::Linear(config.hidden, config.classes));
}

torch::Tensor PatchClassifierImpl::encode(const torch::Tensor& images) {
    TORCH_CHECK(images.dim() == 4 && images.size(1) == m_config.inChannels &&
                    images.size(2) == m_config.imageSize && images.size(3) == m_config.imageSize,
                "the model takes [B, ", m_config.inChannels, ", ", m_config.imageSize, ", ",
                m_config.imageSize, "] images, got ", images.sizes());
    const auto grid = m_encoder->forward(images);  // [B, D, g, g]
    return grid.flatten(/*start_dim=*/2).transpose(1, 2).contiguous();  // [B, L, D], row-major cells
}

torch::Tensor PatchClassifierImpl::encoderStem(const torch::Tensor& images) {
    TORCH_CHECK(m_patchNet.is_empty(), "the encoder's stem is split off in the dense variant only");
    return m_encoder->at<nn::Conv2dImpl>(0).forward(images);
}

torch::Tensor PatchClassifierImpl::encodeStemPath(const torch::Tensor& start, const torch::Tensor& direction,
                                                  const torch::Tensor& alphas) {
    TORCH_CHECK(m_patchNet.is_empty(), "the encoder's stem is split off in the dense variant only");
    // The constructor's dense encoder from its layer 1 on: the stem's ReLU and 2 x 2 pool, fused
    // on the path; the second convolution, its ReLU and pool fused (models/conv_pool_relu.h: the
    // pool comes first, as they commute, and the backward pass reads only what it passes on).
    auto& second = m_encoder->at<nn::Conv2dImpl>(3);
    auto features = reluMaxPoolOnPath(start, direction, alphas, /*kernel=*/2);
    features = convMaxPoolRelu(features, second.weight, second.bias, /*padding=*/1,
                               /*kernel=*/m_config.imageSize / 2 / m_config.grid);
    // In place: a convolution's backward pass reads its input, not its output.
    features = m_encoder->at<nn::Conv2dImpl>(6).forward(features).relu_();
    features = m_encoder->at<nn::Conv2dImpl>(8).forward(features).relu_();
    return features.flatten(/*start_dim=*/2).transpose(1, 2).contiguous();  // [P, L, D], as encode()
}

torch::Tensor PatchClassifierImpl::windows(const torch::Tensor& images) {
    const int cell = m_config.imageSize / m_config.grid;
    // Windows of 3 x 3 cells centred on each cell, zero outside the image.
    return torch::nn::functional::unfold(
        images, torch::nn::functional::UnfoldFuncOptions({3 * cell, 3 * cell}).padding(cell).stride(cell));
}

torch::Tensor PatchClassifierImpl::patchFeatures(const torch::Tensor& images, const torch::Tensor& cells) {
    TORCH_CHECK(!m_patchNet.is_empty(), "patch features exist only in the select variant");
    const int w = patchWindow(m_config);
    const auto all = windows(images);  // [B, C*w*w, L]; a view-like copy, no network work
    const auto index = cells.view({-1, 1, 1}).expand({-1, all.size(1), 1});
    const auto chosen = all.gather(/*dim=*/2, index).squeeze(2);
    return m_patchNet->forward(chosen.view({-1, m_config.inChannels, w, w}));
}

torch::Tensor PatchClassifierImpl::allPatchFeatures(const torch::Tensor& images) {
    TORCH_CHECK(!m_patchNet.is_empty(), "patch features exist only in the select variant");
    const int w = patchWindow(m_config);
    const auto all = windows(images);  // [B, C*w*w, L]
    const auto B = images.size(0), L = all.size(2);
    const auto flat = all.transpose(1, 2).reshape({B * L, m_config.inChannels, w, w});
    return m_patchNet->forward(flat).view({B, L, -1});
}

torch::Tensor PatchClassifierImpl::softValues(const torch::Tensor& images, const torch::Tensor& encoded) {
    return m_patchNet.is_empty() ? encoded : allPatchFeatures(images);
}

torch::Tensor PatchClassifierImpl::logitsUnderAttention(const torch::Tensor& encoded, const torch::Tensor& values,
                                                        const torch::Tensor& attention) {
    TORCH_CHECK(attention.dim() == 3 && attention.size(0) == m_config.steps && attention.size(1) == values.size(0) &&
                    attention.size(2) == values.size(1),
                "patch classifier: attention of shape [", m_config.steps, ", ", values.size(0), ", ", values.size(1),
                "] expected, got ", attention.sizes());
    const auto mean = encoded.mean(/*dim=*/1);
    auto h = torch::tanh(m_initH(mean));
    auto c = torch::tanh(m_initC(mean));
    for (int t = 0; t < m_config.steps; ++t) {
        const auto context = torch::bmm(attention[t].unsqueeze(1), values).squeeze(1);
        std::tie(h, c) = m_rnn(torch::sigmoid(m_gate(h)) * context, std::make_tuple(h, c));
    }
    return m_classifier(h);
}

PatchOutput PatchClassifierImpl::forward(const torch::Tensor& one, const SelectionOptions& rule,
                                         Rng& rng, const torch::Tensor& useExpectation, std::int64_t episodes) {
    if (m_clock) m_clock->start();
    const auto encoded = encode(one);
    lapIf(m_clock, "encoder");
    return forwardEncoded(one, encoded, rule, rng, useExpectation, episodes);
}

PatchOutput PatchClassifierImpl::forwardEncoded(const torch::Tensor& one, const torch::Tensor& encoded,
                                                const SelectionOptions& rule, Rng& rng,
                                                const torch::Tensor& useExpectation, std::int64_t episodes) {
    const bool select = !m_patchNet.is_empty();
    TORCH_CHECK(one.defined() || !select, "patch classifier: the select variant reads the images");
    const auto count = one.defined() ? one.size(0) : encoded.size(0);
    TORCH_CHECK(episodes == 1 || count == 1, "patch classifier: episodes > 1 needs a single image");
    TORCH_CHECK(encoded.dim() == 3 && encoded.size(0) == count, "patch classifier: encoded features of ",
                encoded.size(0), " images for ", count);
    const bool singleCell = rule.rule == SelectionRule::Sample || rule.rule == SelectionRule::Argmax;
    if (episodes > 1 && singleCell && !useExpectation.defined()) return forwardPaths(one, encoded, rule, rng, episodes);
    // Episodes of one image: everything before the first selection is the same for all of them.
    auto share = [&](const torch::Tensor& x) {
        if (episodes == 1) return x;
        std::vector<std::int64_t> sizes(x.sizes().begin(), x.sizes().end());
        sizes[0] = episodes;
        return x.expand(sizes);
    };
    const auto images = one.defined() ? share(one) : one;
    const auto keys = share(encoded);
    // Select variant: one chosen cell per step reads only that window; rules that weight every
    // cell need every cell's patch features, computed once, before any selection.
    const auto values = !select ? keys
                        : (!singleCell || useExpectation.defined()) ? allPatchFeatures(images)
                                                                     : keys;
    if (select) lapIf(m_clock, "patch network");
    const auto prepared = share(m_scorer->prepareKeys(encoded));  // the additive scorer projects every key
    lapIf(m_clock, "scoring");
    const auto mean = encoded.mean(/*dim=*/1);
    auto h = share(torch::tanh(m_initH(mean)));
    auto c = share(torch::tanh(m_initC(mean)));
    lapIf(m_clock, "recurrent + classifier");
    std::vector<torch::Tensor> stepLogits, probs, indices, logProb, entropy;
    SelectionOptions checked = rule;
    checked.checkFinite = false;  // scores come from finite weights; skip the device sync
    for (int t = 0; t < m_config.steps; ++t) {
        const auto scores = m_scorer->forwardPrepared(h, prepared);
        lapIf(m_clock, "scoring");
        const auto s = saccade::select(scores, values, checked, rng);
        lapIf(m_clock, "selection");
        auto context = select && singleCell && !useExpectation.defined()
                           ? patchFeatures(images, s.indices.squeeze(1))
                           : s.context;
        if (select && singleCell) lapIf(m_clock, "patch network");
        if (useExpectation.defined()) {
            const auto expected = torch::bmm(s.probs.unsqueeze(1), values).squeeze(1);
            context = torch::where(useExpectation.unsqueeze(1), expected, context);
        }
        context = torch::sigmoid(m_gate(h)) * context;
        std::tie(h, c) = m_rnn(context, std::make_tuple(h, c));
        stepLogits.push_back(m_classifier(h));
        lapIf(m_clock, "recurrent + classifier");
        probs.push_back(s.probs);
        indices.push_back(s.indices);
        logProb.push_back(s.logProb);
        entropy.push_back(s.entropy);
    }
    return stackSteps(stepLogits, probs, indices, logProb, entropy);
}

PatchOutput PatchClassifierImpl::forwardPaths(const torch::Tensor& one, const torch::Tensor& encoded,
                                              const SelectionOptions& rule, Rng& rng, std::int64_t episodes) {
    const auto cells = encoded.size(1);
    const auto prepared = m_scorer->prepareKeys(encoded);
    const auto values = encoded.expand({episodes, -1, -1});
    const auto mean = encoded.mean(/*dim=*/1);
    // One state per distinct path prefix; `path` maps each episode to its prefix's row.
    auto h = torch::tanh(m_initH(mean));
    auto c = torch::tanh(m_initC(mean));
    auto path = torch::zeros({episodes}, torch::TensorOptions().dtype(torch::kLong).device(encoded.device()));
    std::vector<torch::Tensor> stepLogits, probs, indices, logProb, entropy;
    SelectionOptions checked = rule;
    checked.checkFinite = false;
    for (int t = 0; t < m_config.steps; ++t) {
        const auto scores = m_scorer->forwardPrepared(h, prepared.expand({h.size(0), -1, -1}));
        const auto s = saccade::select(scores.index_select(0, path), values, checked, rng);
        // The extended prefixes: the parent prefix and the cell chosen now.
        const auto found = torch::_unique(path * cells + s.indices.squeeze(1), /*sorted=*/true, /*return_inverse=*/true);
        const auto& keys = std::get<0>(found);
        const auto parent = torch::div(keys, cells, "floor"), cell = keys.remainder(cells);
        const auto hp = h.index_select(0, parent), cp = c.index_select(0, parent);
        const auto context = m_patchNet.is_empty()
                                 ? encoded[0].index_select(0, cell)
                                 : patchFeatures(one.expand({keys.size(0), -1, -1, -1}), cell);
        std::tie(h, c) = m_rnn(torch::sigmoid(m_gate(hp)) * context, std::make_tuple(hp, cp));
        path = std::get<1>(found);
        stepLogits.push_back(m_classifier(h).index_select(0, path));
        probs.push_back(s.probs);
        indices.push_back(s.indices);
        logProb.push_back(s.logProb);
        entropy.push_back(s.entropy);
    }
    return stackSteps(stepLogits, probs, indices, logProb, entropy);
}

}  // namespace saccade
