#include "models/seq/gru_encoder.h"

#include <string>
#include <vector>

#include <torch/torch.h>

#include "attention/packed_linear.h"
#include "models/deferred_weight_grads.h"
#include "models/rnn_gates.h"

namespace saccade {

torch::Tensor bidirectionalGru(const torch::nn::GRU& gru, const torch::Tensor& embedding, const torch::Tensor& source,
                               const torch::Tensor& mask) {
    const auto& o = gru->options;
    TORCH_CHECK(o.num_layers() == 1 && o.bidirectional() && o.batch_first() && o.bias(),
                "bidirectionalGru needs a one-layer, bidirectional, batch-first GRU with biases");
    TORCH_CHECK(source.dim() == 2, "source must be [B, S]");
    const auto B = source.size(0), S = source.size(1), H = o.hidden_size();
    const auto params = gru->named_parameters(/*recurse=*/false);
    const auto stepIds = source.t().contiguous();  // [S, B]: time-major, so each step's rows are contiguous
    torch::Tensor keep;
    if (mask.defined()) keep = mask.t().to(embedding.scalar_type()).contiguous();
    bool needsGrad = embedding.requires_grad();
    for (const auto& p : gru->parameters()) needsGrad = needsGrad || p.requires_grad();
    // Without autograd on the CPU, each step reads its rows of the table inside the gate loop and
    // its state is copied into the output; otherwise the steps' states are stacked.
    const bool inference = embedding.device().is_cpu() && source.device().is_cpu() &&
                           embedding.scalar_type() == torch::kFloat && !(torch::GradMode::is_enabled() && needsGrad);
    auto out = inference ? torch::empty({B, S, 2 * H}, embedding.options()) : torch::Tensor();
    std::vector<torch::Tensor> directions;
    for (int direction = 0; direction < 2; ++direction) {
        const std::string suffix = direction == 0 ? "" : "_reverse";
        const auto& whh = params["weight_hh_l0" + suffix];
        const auto& bhh = params["bias_hh_l0" + suffix];
        const auto table = torch::addmm(params["bias_ih_l0" + suffix], embedding, params["weight_ih_l0" + suffix].t());  // [V, 3H]
        auto h = torch::zeros({B, H}, embedding.options());
        if (inference) {
            // h ping-pongs between two contiguous buffers (the product reads it row by row) and
            // is copied into the output's slice; the bias is added inside the gates.
            auto next = torch::empty({B, H}, embedding.options());
            for (std::int64_t i = 0; i < S; ++i) {
                const auto t = direction == 0 ? i : S - 1 - i;
                gruGatesFromTable({table, stepIds[t], {}, packedLinear(h, whh), bhh, h,
                                   keep.defined() ? keep[t] : torch::Tensor()},
                                  next);
                out.select(1, t).narrow(1, direction * H, H).copy_(next);
                std::swap(h, next);
            }
            continue;
        }
        // unbind, not gi[t]: each select's backward would fill a zero tensor of the whole [S, B, 3H]
        const auto gi = table.index_select(0, stepIds.view({-1})).view({S, B, 3 * H}).unbind(0);
        std::vector<torch::Tensor> outputs(static_cast<std::size_t>(S));
        // The recurrent weight's gradient: one product over every step's rows (each step depends
        // on the first through h, as DeferredWeightGrads needs).
        DeferredWeightGrads recurrent({whh.t()});
        const auto bias = bhh.expand({B, 3 * H});
        for (std::int64_t i = 0; i < S; ++i) {
            const auto t = direction == 0 ? i : S - 1 - i;
            h = gruGates(gi[static_cast<std::size_t>(t)], recurrent.product(bias, {h}), h,
                         keep.defined() ? keep[t] : torch::Tensor());
            outputs[static_cast<std::size_t>(t)] = h;
        }
        directions.push_back(torch::stack(outputs, 1));
    }
    if (inference) return out;
    return torch::cat(directions, 2);
}

}  // namespace saccade
