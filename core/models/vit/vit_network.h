#pragma once
// The native Vision Transformer: a patch embedding (a strided convolution, or with shifted patch
// tokens a layer norm and a linear map of the patch and its four diagonal shifts), a CLS token and
// learned positions, pre-norm layers of multi-head self-attention and a GELU MLP, and a linear
// classifier on the final CLS token. Every layer's attention weights can be kept for traces.
// Engine header: includes LibTorch.

#include <string>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <vector>

#include "models/vit/vit_config.h"

namespace saccade {

struct VitOutput {
    torch::Tensor logits;      ///< [N, K]
    torch::Tensor attentions;  ///< [N, layers, heads, tokens, tokens] when asked for, else undefined
    /// When asked for: each layer's attention [N, heads, tokens, tokens] as the forward used it
    /// (in the graph of `logits`, so autograd gives d logits / d attention).
    std::vector<torch::Tensor> layerAttentions;
};

class VitLayerImpl : public torch::nn::Module {
public:
    VitLayerImpl(int dim, int heads, int mlp, double dropout);
    /// x [N, T, D] -> [N, T, D]; `weights` receives the attention [N, H, T, T] when not null.
    torch::Tensor forward(const torch::Tensor& x, torch::Tensor* weights);
    /// Non-empty: the name under which forward() hands its queries, keys and values to a
    /// QkvCapture (attention/qkv_capture.h).
    std::string captureName;

private:
    int m_heads;
    torch::nn::LayerNorm m_norm1{nullptr}, m_norm2{nullptr};
    torch::nn::Linear m_qkv{nullptr}, m_proj{nullptr}, m_fc1{nullptr}, m_fc2{nullptr};
    torch::nn::Dropout m_drop{nullptr};
};
TORCH_MODULE(VitLayer);

class VitNetworkImpl : public torch::nn::Module {
public:
    explicit VitNetworkImpl(const VitConfig& config);
    /// images [N, C, H, W] in [0, 1].
    VitOutput forward(const torch::Tensor& images, bool keepAttention = false);
    const VitConfig& config() const { return m_config; }
    /// images [N, C, H, W] in [0, 1] -> patch tokens [N, P, D], before the CLS token and positions.
    torch::Tensor patchTokens(const torch::Tensor& images);

private:
    VitConfig m_config;
    torch::nn::Conv2d m_embed{nullptr};                   ///< plain patches
    torch::nn::LayerNorm m_patchNorm{nullptr};            ///< shifted patches
    torch::nn::Linear m_patchEmbed{nullptr};              ///< shifted patches
    torch::Tensor m_cls, m_position;
    torch::nn::ModuleList m_layers;
    torch::nn::LayerNorm m_norm{nullptr};
    torch::nn::Linear m_head{nullptr};
};
TORCH_MODULE(VitNetwork);

}  // namespace saccade
