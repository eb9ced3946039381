#include "models/deferred_weight_grads.h"

#include <algorithm>

#include <torch/autograd.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/torch.h>

namespace saccade {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// The identity on step 0's result; its backward returns step 0's gradient unchanged and every
// weight's gradient from all steps at once. `inputs` and `grads` are shared lists (c10::List is
// a reference type): the caller appends later steps' inputs, their hooks fill `grads`.
struct FirstStepFunction : torch::autograd::Function<FirstStepFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& value, at::TensorList weights,
                                 c10::List<torch::Tensor> inputs, c10::List<torch::Tensor> grads,
                                 c10::List<std::int64_t> consumed) {
        ctx->saved_data["inputs"] = inputs;
        ctx->saved_data["grads"] = grads;
        ctx->saved_data["consumed"] = consumed;
        ctx->saved_data["weights"] = static_cast<std::int64_t>(weights.size());
        return value.clone();
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list outputGrads) {
        const auto inputs = ctx->saved_data["inputs"].toTensorList();
        auto grads = ctx->saved_data["grads"].toTensorList();
        const auto W = static_cast<std::size_t>(ctx->saved_data["weights"].toInt());
        TORCH_CHECK(!torch::GradMode::is_enabled(), "DeferredWeightGrads has no double backward (create_graph)");
        tensor_list result(1 + W + 3);  // value, each weight, and the three lists (no gradient)
        result[0] = outputGrads[0];
        if (!outputGrads[0].defined() || grads.size() == 0) return result;
        grads.set(0, outputGrads[0]);
        std::vector<torch::Tensor> g;
        std::vector<std::vector<torch::Tensor>> x(W);
        for (std::size_t t = 0; t < grads.size(); ++t) {
            const torch::Tensor gt = grads.get(t);
            if (!gt.defined()) continue;  // a step whose result no loss reads
            g.push_back(gt);
            for (std::size_t i = 0; i < W; ++i) x[i].push_back(inputs.get(t * W + i));
        }
        const auto G = torch::cat(g);
        for (std::size_t i = 0; i < W; ++i)
            if (ctx->needs_input_grad(1 + i)) result[1 + i] = packedMmTN(torch::cat(x[i]), G);
        for (std::size_t t = 0; t < grads.size(); ++t) grads.set(t, torch::Tensor());  // a second backward refills them
        auto consumed = ctx->saved_data["consumed"].toIntList();
        consumed.set(0, 1);
        // The pass is over for these steps: the next backward (retain_graph) collects afresh.
        torch::autograd::Engine::get_default_engine().queue_callback([consumed]() { consumed.set(0, 0); });
        return result;
    }
};

// base + sum_i inputs[i] W_i on the packed weights; the backward pass gives base the gradient g
// and inputs[i] g W_i^T (the weights get theirs from FirstStepFunction).
struct PackedSumFunction : torch::autograd::Function<PackedSumFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& base, at::TensorList inputs,
                                 c10::List<torch::Tensor> forwardPacks, c10::List<torch::Tensor> backwardPacks,
                                 c10::List<std::int64_t> dims) {
        ctx->saved_data["backward"] = backwardPacks;
        ctx->saved_data["dims"] = dims;
        const auto N = dims.get(inputs.size());
        auto out = base.clone(at::MemoryFormat::Contiguous);
        for (std::size_t i = 0; i < inputs.size(); ++i)
            multiplyInto(inputs[i], {forwardPacks.get(i), N, dims.get(i)}, out, /*accumulate=*/true);
        return out;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list outputGrads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "DeferredWeightGrads has no double backward (create_graph)");
        const auto packs = ctx->saved_data["backward"].toTensorList();
        const auto dims = ctx->saved_data["dims"].toIntList();
        const auto W = packs.size();
        tensor_list result(1 + W + 3);  // base, each input, and the three lists (no gradient)
        if (!outputGrads[0].defined()) return result;
        const auto g = outputGrads[0].contiguous();
        result[0] = g;
        for (std::size_t i = 0; i < W; ++i) {
            if (!ctx->needs_input_grad(1 + i)) continue;
            auto dx = torch::empty({g.size(0), dims.get(i)}, g.options());
            multiplyInto(g, {packs.get(i), dims.get(i), dims.get(W)}, dx, /*accumulate=*/false);
            result[1 + i] = dx;
        }
        return result;
    }
};

}  // namespace

DeferredWeightGrads::DeferredWeightGrads(std::vector<torch::Tensor> weights) : m_weights(std::move(weights)) {
    bool needed = false;
    for (const auto& w : m_weights) {
        m_detached.push_back(w.detach());
        needed = needed || w.requires_grad();
    }
    m_active = torch::GradMode::is_enabled() && needed;
    // Without autograd there is no backward pass: only the forward packs (product() then takes
    // the packed path only while autograd stays off).
    const bool grads = torch::GradMode::is_enabled();
    for (const auto& w : m_detached) {
        const auto forward = packOperand(w, /*asWeight=*/false);
        const auto backward = grads ? packOperand(w, /*asWeight=*/true) : PackedOperand{};
        if (!forward.packed.defined() || (grads && !backward.packed.defined()) || w.dim() != 2 ||
            w.size(1) != m_detached.front().size(1)) {
            m_forwardPacks = c10::List<torch::Tensor>();
            m_backwardPacks = c10::List<torch::Tensor>();
            return;
        }
        m_forwardPacks.push_back(forward.packed);
        if (grads) m_backwardPacks.push_back(backward.packed);
        m_packDims.push_back(w.size(0));
    }
    if (!m_detached.empty()) m_packDims.push_back(m_detached.front().size(1));
}

torch::Tensor DeferredWeightGrads::product(const torch::Tensor& base, const std::vector<torch::Tensor>& inputs) {
    TORCH_CHECK(inputs.size() == m_weights.size(), "DeferredWeightGrads: one input per weight");
    const auto& weights = m_active ? m_detached : m_weights;
    const bool packed = !m_forwardPacks.empty() &&
                        (m_backwardPacks.size() == m_forwardPacks.size() || !torch::GradMode::is_enabled()) &&
                        base.device().is_cpu() && base.scalar_type() == torch::kFloat &&
                        std::all_of(inputs.begin(), inputs.end(), [](const torch::Tensor& x) {
                            return x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.dim() == 2;
                        });
    torch::Tensor out;
    if (packed) {  // the weights' gradient is deferred (or none is wanted): the packed products carry the rest
        const auto rows = inputs.empty() ? base.size(0) : inputs.front().size(0);
        out = PackedSumFunction::apply(base.expand({rows, m_packDims.get(m_packDims.size() - 1)}), at::TensorList(inputs),
                                       m_forwardPacks, m_backwardPacks, m_packDims);
    } else {
        out = base;
        for (std::size_t i = 0; i < inputs.size(); ++i) out = torch::addmm(out, inputs[i], weights[i]);
    }
    if (!m_active) return out;
    const auto t = m_steps++;
    for (const auto& x : inputs) m_inputs.push_back(x.detach());
    m_grads.push_back(torch::Tensor());
    if (t == 0) return FirstStepFunction::apply(out, at::TensorList(m_weights), m_inputs, m_grads, m_consumed);
    TORCH_CHECK(out.requires_grad(), "DeferredWeightGrads: step ", t, " does not depend on anything with a gradient");
    out.register_hook([grads = m_grads, consumed = m_consumed, t](const torch::Tensor& g) {
        TORCH_CHECK(consumed.get(0) == 0, "DeferredWeightGrads: step ", t,
                    "'s gradient arrived after step 0's: the steps do not form a recurrence on step 0");
        grads.set(static_cast<std::size_t>(t), g);
    });
    return out;
}

}  // namespace saccade
