#include "models/vit/vit_network.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "attention/qkv_capture.h"

namespace saccade {

VitLayerImpl::VitLayerImpl(int dim, int heads, int mlp, double dropout) : m_heads(heads) {
    m_norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
    m_qkv = register_module("qkv", torch::nn::Linear(dim, 3 * dim));
    m_proj = register_module("proj", torch::nn::Linear(dim, dim));
    m_norm2 = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
    m_fc1 = register_module("fc1", torch::nn::Linear(dim, mlp));
    m_fc2 = register_module("fc2", torch::nn::Linear(mlp, dim));
    m_drop = register_module("drop", torch::nn::Dropout(dropout));
}

torch::Tensor VitLayerImpl::forward(const torch::Tensor& x, torch::Tensor* weights) {
    const auto n = x.size(0), t = x.size(1), d = x.size(2), dh = d / m_heads;
    const auto qkv = m_qkv(m_norm1(x)).view({n, t, 3, m_heads, dh}).permute({2, 0, 3, 1, 4});  // [3, N, H, T, dh]
    if (!captureName.empty()) QkvCapture::record(captureName, qkv[0], qkv[1], qkv[2], {});
    const auto q = qkv[0] * (1.0 / std::sqrt(double(dh)));
    const auto a = torch::softmax(torch::matmul(q, qkv[1].transpose(-2, -1)), -1);  // [N, H, T, T]
    if (weights) *weights = a;
    const auto mixed = torch::matmul(a, qkv[2]).transpose(1, 2).reshape({n, t, d});
    auto h = x + m_drop(m_proj(mixed));
    return h + m_drop(m_fc2(torch::gelu(m_fc1(m_norm2(h)))));
}

namespace {
constexpr int kShiftedCopies = 5;  // the image and its four diagonal shifts
}  // namespace

VitNetworkImpl::VitNetworkImpl(const VitConfig& c) : m_config(c) {
    if (c.shiftedPatches) {
        const int width = kShiftedCopies * c.inChannels * c.patch * c.patch;
        m_patchNorm = register_module("patch_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
        m_patchEmbed = register_module("patch_embed", torch::nn::Linear(width, c.dim));
    } else {
        m_embed = register_module("embed",
                                  torch::nn::Conv2d(torch::nn::Conv2dOptions(c.inChannels, c.dim, c.patch).stride(c.patch)));
    }
    m_cls = register_parameter("cls", torch::zeros({1, 1, c.dim}));
    m_position = register_parameter("position", torch::randn({1, c.grid() * c.grid() + 1, c.dim}) * 0.02);
    m_layers = register_module("layers", torch::nn::ModuleList());
    for (int l = 0; l < c.layers; ++l) {
        VitLayer layer(c.dim, c.heads, c.mlp, c.dropout);
        layer->captureName = "layer " + std::to_string(l + 1);
        m_layers->push_back(layer);
    }
    m_norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.dim})));
    m_head = register_module("head", torch::nn::Linear(c.dim, c.classes));
}

torch::Tensor VitNetworkImpl::patchTokens(const torch::Tensor& images) {
    // Centred inputs: the images are in [0, 1], mostly background.
    if (!m_config.shiftedPatches) return m_embed(images - 0.5).flatten(2).transpose(1, 2);
    const std::int64_t s = std::max(1, m_config.patch / 2), p = m_config.patch, g = m_config.grid();
    // Padded once with background (0); a window of it at (s - dy, s - dx) is the image moved by (dx, dy).
    const auto h = images.size(2), w = images.size(3);
    const auto padded = torch::constant_pad_nd(images, {s, s, s, s});
    const auto moved = [&](std::int64_t dx, std::int64_t dy) { return padded.narrow(2, s - dy, h).narrow(3, s - dx, w); };
    const auto all = torch::cat({images, moved(-s, -s), moved(s, -s), moved(-s, s), moved(s, s)}, 1) - 0.5;  // [N, 5C, H, W]
    const auto n = images.size(0), channels = all.size(1);
    const auto patches = all.view({n, channels, g, p, g, p}).permute({0, 2, 4, 1, 3, 5}).reshape({n, g * g, channels * p * p});
    return m_patchEmbed(m_patchNorm(patches));
}

VitOutput VitNetworkImpl::forward(const torch::Tensor& images, bool keepAttention) {
    const auto n = images.size(0);
    auto patches = patchTokens(images);  // [N, P, D]
    auto h = torch::cat({m_cls.expand({n, 1, m_config.dim}), patches}, 1) + m_position;
    std::vector<torch::Tensor> maps;
    for (const auto& module : *m_layers) {
        torch::Tensor weights;
        h = module->as<VitLayerImpl>()->forward(h, keepAttention ? &weights : nullptr);
        if (keepAttention) maps.push_back(weights);
    }
    VitOutput out;
    out.logits = m_head(m_norm(h.select(1, 0)));
    if (keepAttention) out.attentions = torch::stack(maps, 1);
    out.layerAttentions = std::move(maps);
    return out;
}

}  // namespace saccade
