#include "models/path_pooling.h"

#include <cmath>
#include <limits>

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "common/fast_math.h"

namespace saccade {

namespace {

// Channels last throughout: start and direction [H, W, C], the output and `where` [P, Ho, Wo, C],
// so that every step below runs along the C contiguous channels.

// One point and pooled position, every channel: each window's first maximum of s + a d (a NaN
// wins, as in max_pool2d), rectified; `where` keeps its spatial offset (h W + w), or -1 where the
// maximum is <= 0 (no gradient).
SACCADE_FAST_INLINE void pathPoolWindow(const float* __restrict s, const float* __restrict d, float a,
                                        float* __restrict out, std::int32_t* __restrict where, std::int64_t i,
                                        std::int64_t j, std::int64_t W, std::int64_t C, std::int64_t k) {
    for (std::int64_t c = 0; c < C; ++c) {
        out[c] = -std::numeric_limits<float>::infinity();
        where[c] = std::int32_t(i * k * W + j * k);
    }
    for (std::int64_t u = 0; u < k; ++u)
        for (std::int64_t v = 0; v < k; ++v) {
            const std::int32_t q = std::int32_t((i * k + u) * W + j * k + v);
            const float* __restrict sq = s + q * C;
            const float* __restrict dq = d + q * C;
            for (std::int64_t c = 0; c < C; ++c) {
                const float z = sq[c] + a * dq[c];
                const bool take = z > out[c] || z != z;
                out[c] = take ? z : out[c];
                where[c] = take ? q : where[c];
            }
        }
    for (std::int64_t c = 0; c < C; ++c) {
        const bool passes = out[c] > 0.0f || out[c] != out[c];
        out[c] = passes ? out[c] : 0.0f;
        where[c] = passes ? where[c] : -1;
    }
}

// Points [first, last).
SACCADE_FAST_INLINE void pathPoolLoop(const float* s, const float* d, const float* alphas, float* out,
                                      std::int32_t* where, std::int64_t first, std::int64_t last, std::int64_t C,
                                      std::int64_t H, std::int64_t W, std::int64_t k) {
    const std::int64_t Ho = H / k, Wo = W / k;
    for (std::int64_t p = first; p < last; ++p)
        for (std::int64_t i = 0; i < Ho; ++i)
            for (std::int64_t j = 0; j < Wo; ++j) {
                const std::int64_t at = ((p * Ho + i) * Wo + j) * C;
                pathPoolWindow(s, d, alphas[p], out + at, where + at, i, j, W, C, k);
            }
}

SACCADE_FAST_VARIANTS(pathPoolPoints,
                      (const float* s, const float* d, const float* alphas, float* out, std::int32_t* where,
                       std::int64_t first, std::int64_t last, std::int64_t C, std::int64_t H, std::int64_t W,
                       std::int64_t k),
                      (s, d, alphas, out, where, first, last, C, H, W, k), pathPoolLoop)

// The gradients of start (sum over the points) and direction (weighted by alpha), [H, W, C]. grad
// is [P, C, Ho, Wo] with any strides (channels last from the next layer needs no copy). One
// thread: each point adds into the same sums.
SACCADE_FAST_INLINE void pathPoolBackwardLoop(const float* grad, const std::int64_t* strides, const std::int32_t* where,
                                              const float* alphas, float* ds, float* dd, std::int64_t P,
                                              std::int64_t C, std::int64_t Ho, std::int64_t Wo) {
    for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t i = 0; i < Ho; ++i)
            for (std::int64_t j = 0; j < Wo; ++j) {
                const float* g = grad + p * strides[0] + i * strides[2] + j * strides[3];
                const std::int32_t* w = where + ((p * Ho + i) * Wo + j) * C;
                for (std::int64_t c = 0; c < C; ++c) {
                    if (w[c] < 0) continue;
                    const float value = g[c * strides[1]];
                    if (ds) ds[w[c] * C + c] += value;
                    if (dd) dd[w[c] * C + c] += alphas[p] * value;
                }
            }
}

SACCADE_FAST_VARIANTS(pathPoolBackward,
                      (const float* grad, const std::int64_t* strides, const std::int32_t* where, const float* alphas,
                       float* ds, float* dd, std::int64_t P, std::int64_t C, std::int64_t Ho, std::int64_t Wo),
                      (grad, strides, where, alphas, ds, dd, P, C, Ho, Wo), pathPoolBackwardLoop)

struct PathPoolFunction : torch::autograd::Function<PathPoolFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& start,
                                 const torch::Tensor& direction, const torch::Tensor& alphas, std::int64_t kernel) {
        const auto s = start.contiguous(torch::MemoryFormat::ChannelsLast);
        const auto d = direction.contiguous(torch::MemoryFormat::ChannelsLast);
        const auto a = alphas.contiguous();
        const auto P = a.size(0), C = s.size(1), H = s.size(2), W = s.size(3);
        auto out = torch::empty({P, C, H / kernel, W / kernel}, s.options(), torch::MemoryFormat::ChannelsLast);
        auto where = torch::empty(out.sizes(), s.options().dtype(torch::kInt), torch::MemoryFormat::ChannelsLast);
        const float *sp = s.data_ptr<float>(), *dp = d.data_ptr<float>(), *ap = a.data_ptr<float>();
        float* op = out.data_ptr<float>();
        std::int32_t* wp = where.data_ptr<std::int32_t>();
        at::parallel_for(0, P, 1, [&](std::int64_t first, std::int64_t last) {
            pathPoolPoints(sp, dp, ap, op, wp, first, last, C, H, W, kernel);
        });
        ctx->save_for_backward({where, a});
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
        const auto& g = grads[0];
        if (wantStart) ds = torch::empty(shape, g.options(), torch::MemoryFormat::ChannelsLast).zero_();
        if (wantDirection) dd = torch::empty(shape, g.options(), torch::MemoryFormat::ChannelsLast).zero_();
        pathPoolBackward(g.data_ptr<float>(), g.strides().data(), where.data_ptr<std::int32_t>(), alphas.data_ptr<float>(),
                         wantStart ? ds.data_ptr<float>() : nullptr, wantDirection ? dd.data_ptr<float>() : nullptr,
                         where.size(0), where.size(1), where.size(2), where.size(3));
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
