#include "models/path_pooling.h"

#include <cmath>
#include <limits>

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "common/fast_math.h"

namespace saccade {

namespace {

// One point and channel: each window's first maximum of s + a d (a NaN wins, as in max_pool2d),
// rectified; `where` keeps its offset in the plane, or -1 where the maximum is <= 0 (no gradient).
SACCADE_FAST_INLINE void pathPoolPlane(const float* __restrict s, const float* __restrict d, float a,
                                       float* __restrict out, std::int32_t* __restrict where, std::int64_t W,
                                       std::int64_t Ho, std::int64_t Wo, std::int64_t k) {
    for (std::int64_t i = 0; i < Ho; ++i)
        for (std::int64_t j = 0; j < Wo; ++j) {
            float best = -std::numeric_limits<float>::infinity();
            std::int64_t at = i * k * W + j * k;
            for (std::int64_t u = 0; u < k; ++u)
                for (std::int64_t v = 0; v < k; ++v) {
                    const std::int64_t q = (i * k + u) * W + j * k + v;
                    const float z = s[q] + a * d[q];
                    if (z > best || std::isnan(z)) {
                        best = z;
                        at = q;
                    }
                }
            const bool passes = best > 0.0f || std::isnan(best);
            out[i * Wo + j] = passes ? best : 0.0f;
            where[i * Wo + j] = passes ? std::int32_t(at) : -1;
        }
}

// Planes [first, last) of the [P, C] ones.
SACCADE_FAST_INLINE void pathPoolLoop(const float* s, const float* d, const float* alphas, float* out,
                                      std::int32_t* where, std::int64_t first, std::int64_t last, std::int64_t C,
                                      std::int64_t H, std::int64_t W, std::int64_t k) {
    const std::int64_t Ho = H / k, Wo = W / k;
    for (std::int64_t pc = first; pc < last; ++pc) {
        const std::int64_t p = pc / C, c = pc % C;
        pathPoolPlane(s + c * H * W, d + c * H * W, alphas[p], out + pc * Ho * Wo, where + pc * Ho * Wo, W, Ho, Wo,
                      k);
    }
}

SACCADE_FAST_VARIANTS(pathPoolPlanes,
                      (const float* s, const float* d, const float* alphas, float* out, std::int32_t* where,
                       std::int64_t first, std::int64_t last, std::int64_t C, std::int64_t H, std::int64_t W,
                       std::int64_t k),
                      (s, d, alphas, out, where, first, last, C, H, W, k), pathPoolLoop)

// The gradients of start (sum over the points) and direction (weighted by alpha), each channel's
// plane written by one thread.
void pathPoolBackward(const float* grad, const std::int32_t* where, const float* alphas, float* ds, float* dd,
                      std::int64_t P, std::int64_t C, std::int64_t plane, std::int64_t pooled) {
    at::parallel_for(0, C, 1, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t c = first; c < last; ++c)
            for (std::int64_t p = 0; p < P; ++p) {
                const float* g = grad + (p * C + c) * pooled;
                const std::int32_t* w = where + (p * C + c) * pooled;
                for (std::int64_t o = 0; o < pooled; ++o) {
                    if (w[o] < 0) continue;
                    if (ds) ds[c * plane + w[o]] += g[o];
                    if (dd) dd[c * plane + w[o]] += alphas[p] * g[o];
                }
            }
    });
}

struct PathPoolFunction : torch::autograd::Function<PathPoolFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& start,
                                 const torch::Tensor& direction, const torch::Tensor& alphas, std::int64_t kernel) {
        const auto s = start.contiguous(), d = direction.contiguous(), a = alphas.contiguous();
        const auto P = a.size(0), C = s.size(1), H = s.size(2), W = s.size(3);
        auto out = torch::empty({P, C, H / kernel, W / kernel}, s.options());
        auto where = torch::empty(out.sizes(), s.options().dtype(torch::kInt));
        const float *sp = s.data_ptr<float>(), *dp = d.data_ptr<float>(), *ap = a.data_ptr<float>();
        float* op = out.data_ptr<float>();
        std::int32_t* wp = where.data_ptr<std::int32_t>();
        at::parallel_for(0, P * C, 1, [&](std::int64_t first, std::int64_t last) {
            pathPoolPlanes(sp, dp, ap, op, wp, first, last, C, H, W, kernel);
        });
        ctx->save_for_backward({where, a});
        ctx->saved_data["plane"] = H * W;
        ctx->saved_data["shape"] = s.sizes().vec();
        ctx->mark_non_differentiable({where});
        return out;
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "reluMaxPoolOnPath: no double backward (create_graph)");
        const auto saved = ctx->get_saved_variables();
        const auto &where = saved[0], &alphas = saved[1];
        const auto shape = ctx->saved_data["shape"].toIntVector();
        const bool wantStart = ctx->needs_input_grad(0), wantDirection = ctx->needs_input_grad(1);
        torch::Tensor ds, dd;
        if (!grads[0].defined() || (!wantStart && !wantDirection)) return {ds, dd, torch::Tensor(), torch::Tensor()};
        const auto g = grads[0].contiguous();
        if (wantStart) ds = torch::zeros(shape, g.options());
        if (wantDirection) dd = torch::zeros(shape, g.options());
        pathPoolBackward(g.data_ptr<float>(), where.data_ptr<std::int32_t>(), alphas.data_ptr<float>(),
                         wantStart ? ds.data_ptr<float>() : nullptr, wantDirection ? dd.data_ptr<float>() : nullptr,
                         where.size(0), where.size(1), ctx->saved_data["plane"].toInt(), where.size(2) * where.size(3));
        return {ds, dd, torch::Tensor(), torch::Tensor()};
    }
};

bool pathPoolFloat(const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat && !t.is_neg() && !t.is_conj();
}

}  // namespace

torch::Tensor reluMaxPoolOnPathReference(const torch::Tensor& start, const torch::Tensor& direction,
                                         const torch::Tensor& alphas, std::int64_t kernel) {
    const auto points = start + alphas.view({-1, 1, 1, 1}) * direction;
    return torch::max_pool2d(torch::relu(points), kernel);
}

torch::Tensor reluMaxPoolOnPath(const torch::Tensor& start, const torch::Tensor& direction, const torch::Tensor& alphas,
                                std::int64_t kernel) {
    TORCH_CHECK(start.dim() == 4 && start.size(0) == 1 && direction.sizes() == start.sizes(),
                "reluMaxPoolOnPath: start and direction must be [1, C, H, W] alike, got ", start.sizes(), " and ",
                direction.sizes());
    TORCH_CHECK(alphas.dim() == 1, "reluMaxPoolOnPath: alphas must be [P], got ", alphas.sizes());
    TORCH_CHECK(kernel >= 1 && start.size(2) >= kernel && start.size(3) >= kernel,
                "reluMaxPoolOnPath: a ", kernel, " x ", kernel, " pool does not fit ", start.sizes());
    TORCH_CHECK(start.numel() < (std::int64_t(1) << 31), "reluMaxPoolOnPath: a plane too large for int32 offsets");
    if (!pathPoolFloat(start) || !pathPoolFloat(direction) || !pathPoolFloat(alphas))
        return reluMaxPoolOnPathReference(start, direction, alphas, kernel);
    return PathPoolFunction::apply(start, direction, alphas.detach(), kernel);
}

}  // namespace saccade
