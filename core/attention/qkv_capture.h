#pragma once
// QkvCapture: the queries, keys and values a model's attention layers really use, for measuring
// what an efficient attention variant would change in them (analysis/length_fidelity.h). While a
// QkvCapture lives on a thread, every layer that calls record() on that thread appends its
// per-head tensors; without one, record() does nothing and costs one thread-local read.
// Captures nest: the inner one records, and the outer one is restored when it ends.
// Engine header: includes LibTorch.

#include <string>
#include <vector>

#include <torch/types.h>

namespace saccade {

class QkvCapture {
public:
    struct Layer {
        std::string name;       ///< the layer's name, as the model gives it ("encoder layer 1")
        torch::Tensor q, k, v;  ///< [B, H, N, d], [B, H, M, d], [B, H, M, dv], unscaled, detached
        torch::Tensor keep;     ///< [B, M] bool, or undefined when every key is kept
    };

    QkvCapture();
    ~QkvCapture();
    QkvCapture(const QkvCapture&) = delete;
    QkvCapture& operator=(const QkvCapture&) = delete;

    const std::vector<Layer>& layers() const { return m_layers; }

    /// Appends a layer to this thread's capture, if there is one.
    static void record(const std::string& name, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& keep);

private:
    std::vector<Layer> m_layers;
    QkvCapture* m_previous;
};

}  // namespace saccade
