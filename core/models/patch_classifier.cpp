#include "models/patch_classifier.h"

#include <torch/torch.h>

namespace saccade {

namespace nn = torch::nn;

PatchClassifierImpl::PatchClassifierImpl(const PatchConfig& config) : m_config(config) {
    auto valid = validatePatchConfig(config);
    TORCH_CHECK(valid.ok(), "invalid patch model config: ", valid.error());
    const int halfCell = config.imageSize / 2 / config.grid;  // pooling that makes cells exact
    // Receptive field of a cell feature: 38 px for 60x60 inputs, most of a 28-px object.
    m_encoder = register_module(
        "encoder",
        nn::Sequential(nn::Conv2d(nn::Conv2dOptions(config.inChannels, 16, 5).padding(2)),
                       nn::ReLU(), nn::MaxPool2d(2),
                       nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)), nn::ReLU(),
                       nn::MaxPool2d(halfCell),
                       nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)), nn::ReLU(),
                       nn::Conv2d(nn::Conv2dOptions(64, config.featureDim, 3).padding(1)),
                       nn::ReLU()));
    ScorerOptions so;
    so.kind = *parseScorerKind(config.scorer);
    so.queryDim = config.hidden;
    so.keyDim = config.featureDim;
    so.hiddenDim = config.attnHidden;
    m_scorer = register_module("scorer", Scorer(so));
    m_rnn = register_module("rnn", nn::LSTMCell(config.featureDim, config.hidden));
    m_initH = register_module("init_h", nn::Linear(config.featureDim, config.hidden));
    m_initC = register_module("init_c", nn::Linear(config.featureDim, config.hidden));
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

PatchOutput PatchClassifierImpl::forward(const torch::Tensor& images, const SelectionOptions& rule,
                                         Rng& rng, const torch::Tensor& useExpectation) {
    const auto keys = encode(images);
    const auto prepared = m_scorer->prepareKeys(keys);
    const auto mean = keys.mean(/*dim=*/1);
    auto h = torch::tanh(m_initH(mean));
    auto c = torch::tanh(m_initC(mean));
    std::vector<torch::Tensor> stepLogits, probs, indices, logProb, entropy;
    SelectionOptions checked = rule;
    checked.checkFinite = false;  // scores come from finite weights; skip the device sync
    for (int t = 0; t < m_config.steps; ++t) {
        const auto scores = m_scorer->forwardPrepared(h, prepared);
        const auto s = select(scores, keys, checked, rng);
        auto context = s.context;
        if (useExpectation.defined()) {
            const auto expected = torch::bmm(s.probs.unsqueeze(1), keys).squeeze(1);
            context = torch::where(useExpectation.unsqueeze(1), expected, context);
        }
        context = torch::sigmoid(m_gate(h)) * context;
        std::tie(h, c) = m_rnn(context, std::make_tuple(h, c));
        stepLogits.push_back(m_classifier(h));
        probs.push_back(s.probs);
        indices.push_back(s.indices);
        logProb.push_back(s.logProb);
        entropy.push_back(s.entropy);
    }
    PatchOutput out;
    out.stepLogits = torch::stack(stepLogits);
    out.logits = stepLogits.back();
    out.probs = torch::stack(probs);
    out.indices = torch::stack(indices);
    out.logProb = torch::stack(logProb);
    out.entropy = torch::stack(entropy);
    return out;
}

}  // namespace saccade
