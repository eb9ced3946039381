#pragma once
// QkvCapture: the queries, keys and values a model's attention layers really use, for measuring
// what an efficient attention variant would change in them (analysis/length_fidelity.h). While a
// QkvCapture lives on a thread, every layer that calls record() on that thread appends its
// per-head tensors; without one, record() does nothing and costs one thread-local read.
// Captures nest: the inner one records, and the outer one is restored when it ends. A decoder's
// layers (causal self-attention, cross-attention) record only into a capture made to take them,
// so a capture of an encoder's layers holds exactly those while the decoder runs beside them.
// Engine header: includes LibTorch.

#include <string>
#include <vector>

#include <torch/types.h>

namespace saccade {

/// What a layer's queries read: its own positions (an encoder's or a ViT's self-attention), its
/// own positions up to the query's (a decoder's causal self-attention), or another sequence's (a
/// decoder's cross-attention over the encoder's output).
enum class QkvKind { Self, CausalSelf, Cross };

class QkvCapture {
public:
    struct Layer {
        std::string name;       ///< the layer's name, as the model gives it ("encoder layer 1")
        torch::Tensor q, k, v;  ///< [B, H, N, d], [B, H, M, d], [B, H, M, dv], unscaled, detached
        torch::Tensor keep;     ///< [B, M] bool, or undefined when every key is kept
        QkvKind kind = QkvKind::Self;
    };

    /// `decoder`: also take the layers recorded as CausalSelf or Cross.
    explicit QkvCapture(bool decoder = false);
    ~QkvCapture();
    QkvCapture(const QkvCapture&) = delete;
    QkvCapture& operator=(const QkvCapture&) = delete;

    const std::vector<Layer>& layers() const { return m_layers; }

    /// Appends a layer to this thread's capture, if there is one.
    static void record(const std::string& name, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& keep, QkvKind kind = QkvKind::Self);

private:
    std::vector<Layer> m_layers;
    QkvCapture* m_previous;
    bool m_decoder;
};

}  // namespace saccade
