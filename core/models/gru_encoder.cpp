#include "models/gru_encoder.h"

#include <string>
#include <vector>

#include <torch/torch.h>

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
    const auto ids = source.t().reshape({-1});  // time-major, so that each step's rows are contiguous
    torch::Tensor keep;
    if (mask.defined()) keep = mask.t().to(embedding.scalar_type()).contiguous();
    bool needsGrad = embedding.requires_grad();
    for (const auto& p : gru->parameters()) needsGrad = needsGrad || p.requires_grad();
    const bool inference = embedding.device().is_cpu() && source.device().is_cpu() &&
                           embedding.scalar_type() == torch::kFloat && !(torch::GradMode::is_enabled() && needsGrad);
    if (inference) {  // each step reads its rows of the table and writes its state into the output
        auto out = torch::empty({B, S, 2 * H}, embedding.options());
        const auto stepIds = source.t().contiguous();  // [S, B]
        for (int direction = 0; direction < 2; ++direction) {
            const std::string suffix = direction == 0 ? "" : "_reverse";
            const auto table = torch::addmm(params["bias_ih_l0" + suffix], embedding, params["weight_ih_l0" + suffix].t());
            const auto& whh = params["weight_hh_l0" + suffix];
            const auto& bhh = params["bias_hh_l0" + suffix];
            auto h = torch::zeros({B, H}, embedding.options());
            for (std::int64_t i = 0; i < S; ++i) {
                const auto t = direction == 0 ? i : S - 1 - i;
                auto slot = out.select(1, t).narrow(1, direction * H, H);
                gruGatesFromTable(table, stepIds[t], torch::addmm(bhh, h, whh.t()), h, keep.defined() ? keep[t] : torch::Tensor(),
                                  slot);
                h = slot;
            }
        }
        return out;
    }
    std::vector<torch::Tensor> directions;
    for (const std::string suffix : {"", "_reverse"}) {
        const auto& wih = params["weight_ih_l0" + suffix];
        const auto& whh = params["weight_hh_l0" + suffix];
        const auto& bhh = params["bias_hh_l0" + suffix];
        const auto table = torch::addmm(params["bias_ih_l0" + suffix], embedding, wih.t());  // [V, 3H]
        // unbind, not gi[t]: each select's backward would fill a zero tensor of the whole [S, B, 3H]
        const auto gi = table.index_select(0, ids).view({S, B, 3 * H}).unbind(0);
        auto h = torch::zeros({B, H}, embedding.options());
        std::vector<torch::Tensor> outputs(static_cast<std::size_t>(S));
        for (std::int64_t i = 0; i < S; ++i) {
            const auto t = suffix.empty() ? i : S - 1 - i;
            h = gruGates(gi[static_cast<std::size_t>(t)], torch::addmm(bhh, h, whh.t()), h, keep.defined() ? keep[t] : torch::Tensor());
            outputs[static_cast<std::size_t>(t)] = h;
        }
        directions.push_back(torch::stack(outputs, 1));
    }
    return torch::cat(directions, 2);
}

}  // namespace saccade
