#include "models/conv_pool_relu.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "common/fast_math.h"

namespace saccade {

namespace {

// Channels last throughout: the convolution's output y [B, Hy, Wy, Cout], the result and
// `where` [B, Ho, Wo, Cout], the input's gradient [B, H, W, Cin]; every step runs along the
// contiguous channels.

// Images [first, last) of y: each window's first maximum (a NaN wins, as in max_pool2d),
// rectified; `where` keeps its spatial offset in y (h Wy + w), or -1 where it is <= 0.
SACCADE_FAST_INLINE void poolReluLoop(const float* y, float* out, std::int32_t* where, std::int64_t first,
                                      std::int64_t last, std::int64_t H, std::int64_t W, std::int64_t C,
                                      std::int64_t k) {
    const std::int64_t Ho = H / k, Wo = W / k;
    for (std::int64_t b = first; b < last; ++b)
        for (std::int64_t i = 0; i < Ho; ++i)
            for (std::int64_t j = 0; j < Wo; ++j) {
                float* __restrict o = out + ((b * Ho + i) * Wo + j) * C;
                std::int32_t* __restrict at = where + ((b * Ho + i) * Wo + j) * C;
                for (std::int64_t c = 0; c < C; ++c) {
                    o[c] = -std::numeric_limits<float>::infinity();
                    at[c] = std::int32_t(i * k * W + j * k);
                }
                for (std::int64_t u = 0; u < k; ++u)
                    for (std::int64_t v = 0; v < k; ++v) {
                        const std::int32_t q = std::int32_t((i * k + u) * W + j * k + v);
                        const float* __restrict yq = y + (b * H * W + q) * C;
                        for (std::int64_t c = 0; c < C; ++c) {
                            const bool take = yq[c] > o[c] || yq[c] != yq[c];
                            o[c] = take ? yq[c] : o[c];
                            at[c] = take ? q : at[c];
                        }
                    }
                for (std::int64_t c = 0; c < C; ++c) {
                    const bool passes = o[c] > 0.0f || o[c] != o[c];
                    o[c] = passes ? o[c] : 0.0f;
                    at[c] = passes ? at[c] : -1;
                }
            }
}

SACCADE_FAST_VARIANTS(poolReluImages,
                      (const float* y, float* out, std::int32_t* where, std::int64_t first, std::int64_t last,
                       std::int64_t H, std::int64_t W, std::int64_t C, std::int64_t k),
                      (y, out, where, first, last, H, W, C, k), poolReluLoop)

struct ConvShape {
    std::int64_t Cout, Ho, Wo;  // the pooled output
    std::int64_t Cin, H, W;     // the input
    std::int64_t kh, kw, pad;   // the filter
    std::int64_t Wy;            // the convolution's output width (where's offsets are in its plane)
};

// Images [first, last): gin [B, H, W, Cin] gains g * weight[co, :, u, v] at every input position
// (i + u - pad, j + v - pad) that a passed output position (i, j) reads. wt is the weight as
// [Cout, kh, kw, Cin]; g [B, Cout, Ho, Wo] has any strides.
SACCADE_FAST_INLINE void sparseInputGradLoop(const float* g, const std::int64_t* gs, const std::int32_t* where,
                                             const float* wt, float* gin, std::int64_t first, std::int64_t last,
                                             ConvShape s) {
    for (std::int64_t b = first; b < last; ++b) {
        float* image = gin + b * s.H * s.W * s.Cin;
        for (std::int64_t o = 0; o < s.Ho * s.Wo; ++o) {
            const std::int32_t* wp = where + (b * s.Ho * s.Wo + o) * s.Cout;
            const float* gp = g + b * gs[0] + (o / s.Wo) * gs[2] + (o % s.Wo) * gs[3];
            for (std::int64_t co = 0; co < s.Cout; ++co) {
                const float gv = gp[co * gs[1]];
                if (wp[co] < 0 || gv == 0.0f) continue;
                const std::int64_t i = wp[co] / s.Wy, j = wp[co] % s.Wy;
                for (std::int64_t u = 0; u < s.kh; ++u) {
                    const std::int64_t ii = i + u - s.pad;
                    if (ii < 0 || ii >= s.H) continue;
                    for (std::int64_t v = 0; v < s.kw; ++v) {
                        const std::int64_t jj = j + v - s.pad;
                        if (jj < 0 || jj >= s.W) continue;
                        const float* __restrict row = wt + ((co * s.kh + u) * s.kw + v) * s.Cin;
                        float* __restrict dst = image + (ii * s.W + jj) * s.Cin;
                        for (std::int64_t c = 0; c < s.Cin; ++c) dst[c] += gv * row[c];
                    }
                }
            }
        }
    }
}

constexpr std::int64_t kGroupedCin = 16, kGroupedMaxWindow = 64;

// dst[0, 16) += sum over the group's channels of their gradient times their filter row. A GCC
// vector type: left to itself the compiler unrolls the 16 lanes into scalar multiply-adds.
typedef float GroupRow __attribute__((vector_size(kGroupedCin * sizeof(float))));
SACCADE_FAST_INLINE void addGroupRow(float* dst, const float* g, const std::int64_t* gs, const std::int32_t* order,
                                     std::int32_t first, std::int32_t last, const float* row, std::int64_t rowStride) {
    GroupRow sum = {}, w, d;
    for (std::int32_t n = first; n < last; ++n) {
        std::memcpy(&w, row + order[n] * rowStride, sizeof w);
        sum += g[order[n] * gs[1]] * w;
    }
    std::memcpy(&d, dst, sizeof d);
    d += sum;
    std::memcpy(dst, &d, sizeof d);
}

// sparseInputGradLoop for 16 input channels and a 3 x 3 filter (the patch encoder's second
// layer), with the channels of each pooled position grouped by the position they passed: one
// group's nine taps add up in registers (one 16-float row each) and reach gin once, instead of
// every channel's nine rows being read and written back in turn. `slotOf` maps an offset in the
// window (du Wy + dv) to its slot du k + dv, so that no division runs per channel.
SACCADE_FAST_INLINE void groupedInputGradLoop(const float* g, const std::int64_t* gs, const std::int32_t* where,
                                              const float* wt, float* gin, std::int64_t first, std::int64_t last,
                                              ConvShape s, std::int64_t k, const std::int32_t* slotOf) {
    std::int32_t order[256], slot[256], starts[kGroupedMaxWindow + 1], fill[kGroupedMaxWindow];
    for (std::int64_t b = first; b < last; ++b) {
        float* image = gin + b * s.H * s.W * kGroupedCin;
        for (std::int64_t pi = 0; pi < s.Ho; ++pi)
            for (std::int64_t pj = 0; pj < s.Wo; ++pj) {
                const std::int32_t* wp = where + ((b * s.Ho + pi) * s.Wo + pj) * s.Cout;
                const float* gp = g + b * gs[0] + pi * gs[2] + pj * gs[3];
                const std::int64_t base = pi * k * s.Wy + pj * k;
                // Counting sort of the passed channels by their position in the window.
                for (std::int64_t q = 0; q <= k * k; ++q) starts[q] = 0;
                for (std::int64_t co = 0; co < s.Cout; ++co) {
                    const bool passed = wp[co] >= 0 && gp[co * gs[1]] != 0.0f;
                    slot[co] = passed ? slotOf[wp[co] - base] : -1;
                    starts[slot[co] + 1] += passed;
                }
                for (std::int64_t q = 0; q < k * k; ++q) starts[q + 1] += starts[q];
                for (std::int64_t q = 0; q < k * k; ++q) fill[q] = starts[q];
                for (std::int64_t co = 0; co < s.Cout; ++co)
                    if (slot[co] >= 0) order[fill[slot[co]]++] = std::int32_t(co);
                for (std::int64_t q = 0; q < k * k; ++q) {
                    if (starts[q] == starts[q + 1]) continue;
                    const std::int64_t i = pi * k + q / k, j = pj * k + q % k;
                    for (std::int64_t u = 0; u < 3; ++u) {
                        const std::int64_t ii = i + u - s.pad;
                        if (ii < 0 || ii >= s.H) continue;
                        for (std::int64_t v = 0; v < 3; ++v) {
                            const std::int64_t jj = j + v - s.pad;
                            if (jj < 0 || jj >= s.W) continue;
                            addGroupRow(image + (ii * s.W + jj) * kGroupedCin, gp, gs, order, starts[q],
                                        starts[q + 1], wt + (u * 3 + v) * kGroupedCin, 9 * kGroupedCin);
                        }
                    }
                }
            }
    }
}

SACCADE_FAST_VARIANTS(groupedInputGrad,
                      (const float* g, const std::int64_t* gs, const std::int32_t* where, const float* wt, float* gin,
                       std::int64_t first, std::int64_t last, ConvShape s, std::int64_t k, const std::int32_t* slotOf),
                      (g, gs, where, wt, gin, first, last, s, k, slotOf), groupedInputGradLoop)

SACCADE_FAST_VARIANTS(sparseInputGrad,
                      (const float* g, const std::int64_t* gs, const std::int32_t* where, const float* wt, float* gin,
                       std::int64_t first, std::int64_t last, ConvShape s),
                      (g, gs, where, wt, gin, first, last, s), sparseInputGradLoop)

struct ConvPoolReluFunction : torch::autograd::Function<ConvPoolReluFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                 const torch::Tensor& weight, const torch::Tensor& bias, std::int64_t padding,
                                 std::int64_t kernel) {
        const auto y = torch::conv2d(x.contiguous(torch::MemoryFormat::ChannelsLast), weight, bias, /*stride=*/1,
                                     padding)
                           .contiguous(torch::MemoryFormat::ChannelsLast);
        const auto B = y.size(0), Cout = y.size(1), Hy = y.size(2), Wy = y.size(3);
        auto out = torch::empty({B, Cout, Hy / kernel, Wy / kernel}, y.options(), torch::MemoryFormat::ChannelsLast);
        auto where = torch::empty(out.sizes(), y.options().dtype(torch::kInt), torch::MemoryFormat::ChannelsLast);
        const float* yp = y.data_ptr<float>();
        float* op = out.data_ptr<float>();
        std::int32_t* wp = where.data_ptr<std::int32_t>();
        at::parallel_for(0, B, 1, [&](std::int64_t first, std::int64_t last) {
            poolReluImages(yp, op, wp, first, last, Hy, Wy, Cout, kernel);
        });
        ctx->save_for_backward({x, weight, where});
        ctx->saved_data["padding"] = padding;
        ctx->saved_data["kernel"] = kernel;
        ctx->saved_data["convolved"] = std::vector<std::int64_t>{Hy, Wy};
        ctx->mark_non_differentiable({where});
        return out;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "convMaxPoolRelu: no double backward (create_graph)");
        const auto saved = ctx->get_saved_variables();
        const auto &x = saved[0], &weight = saved[1], &where = saved[2];
        const auto padding = ctx->saved_data["padding"].toInt();
        const auto convolved = ctx->saved_data["convolved"].toIntVector();
        torch::Tensor dx, dw, db;
        if (!grads[0].defined()) return {dx, dw, db, torch::Tensor(), torch::Tensor()};
        const auto& g = grads[0];
        const ConvShape s{weight.size(0), where.size(2), where.size(3), x.size(1), x.size(2), x.size(3),
                          weight.size(2), weight.size(3), padding, convolved[1]};
        if (ctx->needs_input_grad(0)) {
            const auto B = x.size(0);
            auto gin = torch::zeros({B, s.H, s.W, s.Cin}, g.options());
            const auto wt = weight.detach().permute({0, 2, 3, 1}).contiguous();  // [Cout, kh, kw, Cin]
            const float *gp = g.data_ptr<float>(), *tp = wt.data_ptr<float>();
            const std::int64_t* strides = g.strides().data();
            const std::int32_t* wp = where.data_ptr<std::int32_t>();
            float* dp = gin.data_ptr<float>();
            const auto kernel = ctx->saved_data["kernel"].toInt();
            const bool grouped = s.Cin == kGroupedCin && s.kh == 3 && s.kw == 3 && s.Cout <= 256 &&
                                 kernel * kernel <= kGroupedMaxWindow;
            std::vector<std::int32_t> slotOf(grouped ? std::size_t((kernel - 1) * s.Wy + kernel) : 0, -1);
            for (std::int64_t du = 0; grouped && du < kernel; ++du)
                for (std::int64_t dv = 0; dv < kernel; ++dv) slotOf[std::size_t(du * s.Wy + dv)] = std::int32_t(du * kernel + dv);
            at::parallel_for(0, B, 1, [&](std::int64_t first, std::int64_t last) {
                if (grouped)
                    groupedInputGrad(gp, strides, wp, tp, dp, first, last, s, kernel, slotOf.data());
                else
                    sparseInputGrad(gp, strides, wp, tp, dp, first, last, s);
            });
            dx = gin.permute({0, 3, 1, 2});  // [B, Cin, H, W], channels-last strides
        }
        if (ctx->needs_input_grad(1) || ctx->needs_input_grad(2)) {
            // Training, not attribution: the dense map and ATen's weight and bias gradients.
            auto gy = torch::zeros({g.size(0), g.size(1), convolved[0] * convolved[1]}, g.options());
            const auto index = where.contiguous().flatten(/*start_dim=*/2).to(torch::kLong);
            const auto passed = index.ge(0);
            gy.scatter_add_(/*dim=*/2, index.clamp_min(0), g.contiguous().flatten(/*start_dim=*/2) * passed);
            const auto parts = at::convolution_backward(
                gy.view({g.size(0), g.size(1), convolved[0], convolved[1]}), x, weight, c10::IntArrayRef{weight.size(0)},
                /*stride=*/{1, 1}, {padding, padding}, /*dilation=*/{1, 1}, /*transposed=*/false,
                /*output_padding=*/{0, 0}, /*groups=*/1, {false, ctx->needs_input_grad(1), ctx->needs_input_grad(2)});
            dw = std::get<1>(parts);
            db = std::get<2>(parts);
        }
        return {dx, dw, db, torch::Tensor(), torch::Tensor()};
    }
};

bool convPoolFloat(const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat && !t.is_neg() && !t.is_conj();
}

}  // namespace

torch::Tensor convMaxPoolReluReference(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                       std::int64_t padding, std::int64_t kernel) {
    return torch::relu(torch::max_pool2d(torch::conv2d(x, weight, bias, /*stride=*/1, padding), kernel));
}

torch::Tensor convMaxPoolRelu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                              std::int64_t padding, std::int64_t kernel) {
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4 && weight.size(1) == x.size(1) && bias.dim() == 1 &&
                    bias.size(0) == weight.size(0),
                "convMaxPoolRelu: x [B, Cin, H, W], weight [Cout, Cin, kh, kw] and bias [Cout] expected, got ",
                x.sizes(), ", ", weight.sizes(), " and ", bias.sizes());
    TORCH_CHECK(kernel >= 1 && padding >= 0, "convMaxPoolRelu: kernel >= 1 and padding >= 0 expected");
    TORCH_CHECK(x.size(2) * x.size(3) < (std::int64_t(1) << 31), "convMaxPoolRelu: a plane too large for int32 offsets");
    if (!convPoolFloat(x) || !convPoolFloat(weight) || !convPoolFloat(bias))
        return convMaxPoolReluReference(x, weight, bias, padding, kernel);
    return ConvPoolReluFunction::apply(x, weight, bias, padding, kernel);
}

}  // namespace saccade
