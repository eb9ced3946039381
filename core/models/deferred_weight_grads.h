#pragma once
// The products a recurrence makes with weights that every step shares, base_t + sum_i x_ti W_i,
// with the weights' gradient deferred: autograd then computes only each step's input gradients,
// g_t W_i^T, and the weights' gradient sum_t x_ti^T g_t is one matrix product over every step's
// rows at the end of the backward pass. Per step it would be one product with a reduction as
// short as the step's batch (64 rows), and one accumulation of a full-size gradient.
//
// How: step 0's result passes through an identity node that holds the weights; every later
// step's result records its gradient g_t as the backward pass reaches it. Later steps depend on
// step 0 (the state of a recurrence does), so step 0's node runs last and finds every g_t there.
// Only for such a recurrence: a later step that does not depend on step 0 could be pruned from,
// or run after step 0's node in, a backward pass, and its share of the weights' gradient would
// be lost (a gradient that arrives after step 0's node ran is an error). No double backward
// (create_graph). The inputs are kept as they were at the step: do not change them in place
// before the backward pass.
// Where the packed kernel runs (attention/packed_linear.h), each weight is packed once for the
// steps' products x W and once for their input gradients g W^T.
// Engine header: includes LibTorch.

#include <cstdint>
#include <vector>

#include <ATen/core/List.h>
#include <torch/types.h>

#include "attention/packed_linear.h"

namespace saccade {

class DeferredWeightGrads {
public:
    /// weights: W_i [K_i, N], the same every step.
    explicit DeferredWeightGrads(std::vector<torch::Tensor> weights);
    DeferredWeightGrads(const DeferredWeightGrads&) = delete;  // copies would share the lists, not the step count
    DeferredWeightGrads& operator=(const DeferredWeightGrads&) = delete;

    /// Whether the gradient is deferred: autograd is on and some weight needs a gradient.
    /// Otherwise product() is the plain sum of products.
    bool active() const { return m_active; }

    /// base [n, N] + sum_i inputs[i] [n, K_i] @ W_i, for steps 0, 1, ... in order; n may shrink
    /// from step to step. Every later step must depend on step 0's result.
    torch::Tensor product(const torch::Tensor& base, const std::vector<torch::Tensor>& inputs);

private:
    std::vector<torch::Tensor> m_weights, m_detached;
    c10::List<torch::Tensor> m_forwardPacks, m_backwardPacks;  ///< empty unless every weight packed
    c10::List<std::int64_t> m_packDims;                        ///< K_i, then N
    bool m_active = false;
    std::int64_t m_steps = 0;
    c10::List<torch::Tensor> m_inputs;  ///< each step's inputs, detached, step-major
    c10::List<torch::Tensor> m_grads;   ///< g_t of each step, as the backward pass finds it
    c10::List<std::int64_t> m_consumed{0};  ///< 1 once step 0's node has read the gradients
};

}  // namespace saccade
