// Exact attention without the N x M matrix: the FlashAttention algorithm (Dao et al. 2022) in
// ATen operations, so it runs on any device. The forward pass walks key tiles with a running row
// maximum m and row sum l, rescaling the partial output when the maximum grows; it keeps only the
// output and each row's log-sum-exp L = m + log l. The backward pass recomputes each tile's
// probabilities as exp(S - L) and accumulates dq, dk and dv tile by tile, using
// D_i = sum_c dO_ic O_ic in place of the softmax's row sums.
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "attention/variant_kernels.h"

namespace saccade::variants {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Per head, [B*H, 1, M]: true where a key is masked; undefined when every key is kept.
torch::Tensor droppedKeys(const torch::Tensor& keep, std::int64_t heads) {
    if (!keep.defined()) return {};
    const auto B = keep.size(0), M = keep.size(1);
    return keep.logical_not().unsqueeze(1).expand({B, heads, M}).reshape({B * heads, 1, M});
}

struct Flat {
    torch::Tensor q, k, v, drop;  // [BH, N, d], [BH, M, d], [BH, M, dv], [BH, 1, M] or undefined
};

Flat flatten(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& keep) {
    const auto BH = q.size(0) * q.size(1);
    return {q.reshape({BH, q.size(2), q.size(3)}), k.reshape({BH, k.size(2), k.size(3)}),
            v.reshape({BH, v.size(2), v.size(3)}), droppedKeys(keep, q.size(1))};
}

/// Returns the output [BH, N, dv] and the rows' log-sum-exp [BH, N, 1].
std::pair<torch::Tensor, torch::Tensor> tiledForward(const Flat& f, std::int64_t tile) {
    const auto BH = f.q.size(0), N = f.q.size(1), M = f.k.size(1), dv = f.v.size(2);
    const double scale = 1.0 / std::sqrt(double(f.q.size(2)));
    const double ninf = -std::numeric_limits<double>::infinity();
    auto out = torch::empty({BH, N, dv}, f.v.options());
    auto lse = torch::empty({BH, N, 1}, f.q.options());
    for (std::int64_t i0 = 0; i0 < N; i0 += tile) {
        const auto tq = std::min(tile, N - i0);
        const auto qi = f.q.narrow(1, i0, tq) * scale;
        auto m = torch::full({BH, tq, 1}, ninf, f.q.options());
        auto l = torch::zeros({BH, tq, 1}, f.q.options());
        auto acc = torch::zeros({BH, tq, dv}, f.v.options());
        for (std::int64_t j0 = 0; j0 < M; j0 += tile) {
            const auto tk = std::min(tile, M - j0);
            auto s = torch::bmm(qi, f.k.narrow(1, j0, tk).transpose(1, 2));
            if (f.drop.defined()) s.masked_fill_(f.drop.narrow(2, j0, tk), ninf);
            auto mNew = torch::maximum(m, std::get<0>(s.max(/*dim=*/2, /*keepdim=*/true)));
            // A row whose keys so far are all masked keeps m = -inf; shift it by 0 instead.
            const auto shift = f.drop.defined() ? mNew.masked_fill(mNew.isinf(), 0.0) : mNew;
            s.sub_(shift).exp_();
            const auto alpha = (m - shift).exp_();
            l.mul_(alpha).add_(s.sum(/*dim=*/2, /*keepdim=*/true));
            acc.mul_(alpha).baddbmm_(s, f.v.narrow(1, j0, tk));
            m = mNew;
        }
        out.narrow(1, i0, tq).copy_(acc.div_(l));
        lse.narrow(1, i0, tq).copy_(m + l.log());
    }
    return {out, lse};
}

/// dq, dk, dv from the saved output and log-sum-exp, recomputing each tile's probabilities.
variable_list tiledBackward(const Flat& f, const torch::Tensor& out, const torch::Tensor& lse, const torch::Tensor& dOut,
                            std::int64_t tile) {
    const auto N = f.q.size(1), M = f.k.size(1);
    const double scale = 1.0 / std::sqrt(double(f.q.size(2)));
    const auto delta = (dOut * out).sum(/*dim=*/2, /*keepdim=*/true);  // [BH, N, 1]
    auto dq = torch::zeros_like(f.q), dk = torch::empty_like(f.k), dv = torch::empty_like(f.v);
    for (std::int64_t j0 = 0; j0 < M; j0 += tile) {
        const auto tk = std::min(tile, M - j0);
        const auto kj = f.k.narrow(1, j0, tk), vj = f.v.narrow(1, j0, tk);
        auto dkj = dk.narrow(1, j0, tk), dvj = dv.narrow(1, j0, tk);
        dkj.zero_();
        dvj.zero_();
        for (std::int64_t i0 = 0; i0 < N; i0 += tile) {
            const auto tq = std::min(tile, N - i0);
            const auto qi = f.q.narrow(1, i0, tq) * scale;
            const auto dOi = dOut.narrow(1, i0, tq);
            auto p = torch::bmm(qi, kj.transpose(1, 2));
            if (f.drop.defined()) p.masked_fill_(f.drop.narrow(2, j0, tk), -std::numeric_limits<double>::infinity());
            p.sub_(lse.narrow(1, i0, tq)).exp_();
            dvj.baddbmm_(p.transpose(1, 2), dOi);
            auto ds = torch::bmm(dOi, vj.transpose(1, 2));
            ds.sub_(delta.narrow(1, i0, tq)).mul_(p);
            dq.narrow(1, i0, tq).baddbmm_(ds, kj, /*beta=*/1.0, /*alpha=*/scale);
            dkj.baddbmm_(ds.transpose(1, 2), qi);
        }
    }
    return {dq, dk, dv};
}

struct MemoryEfficientFunction : torch::autograd::Function<MemoryEfficientFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v, const torch::Tensor& keep, std::int64_t tile) {
        const bool masked = keep.numel() > 0;
        const auto f = flatten(q, k, v, masked ? keep : torch::Tensor());
        auto [out, lse] = tiledForward(f, tile);
        ctx->save_for_backward({q, k, v, out, lse});
        ctx->saved_data["tile"] = tile;
        ctx->saved_data["masked"] = masked;
        if (masked) ctx->saved_data["keep"] = keep;
        return out.view({q.size(0), q.size(1), q.size(2), v.size(3)});
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        const auto saved = ctx->get_saved_variables();
        const auto& q = saved[0];
        const auto& k = saved[1];
        const auto& v = saved[2];
        const auto keep = ctx->saved_data["masked"].toBool() ? ctx->saved_data["keep"].toTensor() : torch::Tensor();
        const auto f = flatten(q, k, v, keep);
        const auto dOut = grads[0].reshape({f.q.size(0), q.size(2), v.size(3)}).contiguous();
        auto g = tiledBackward(f, saved[3], saved[4], dOut, ctx->saved_data["tile"].toInt());
        return {g[0].view(q.sizes()), g[1].view(k.sizes()), g[2].view(v.sizes()), torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

torch::Tensor memoryEfficient(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& keep, std::int64_t tile) {
    // autograd::Function takes no undefined tensor: an empty one stands for "every key kept".
    const auto mask = keep.defined() ? keep : torch::empty({0}, q.options().dtype(torch::kBool));
    return MemoryEfficientFunction::apply(q.contiguous(), k.contiguous(), v.contiguous(), mask, tile);
}

}  // namespace saccade::variants
