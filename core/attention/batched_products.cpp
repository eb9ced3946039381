#include "attention/batched_products.h"

#include <cstdint>

#include <torch/autograd.h>
#include <torch/torch.h>

#include "common/fast_math.h"

namespace saccade {

namespace {

// Sixteen partial sums, so that the dot product vectorises without reassociating the sum.
SACCADE_FAST_INLINE float dot(const float* __restrict x, const float* __restrict y, std::int64_t n) {
    float acc[16] = {};
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; ++j) acc[j] += x[i + j] * y[i + j];
    for (int j = 0; j < 8; ++j) acc[j] += acc[j + 8];
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; ++i) s += x[i] * y[i];
    return s;
}
SACCADE_FAST_INLINE void axpy(float a, const float* __restrict x, float* __restrict y, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}
SACCADE_FAST_INLINE void dotLoop(const float* rows, std::int64_t batchStride, const float* vec, float* out,
                                 std::int64_t B, std::int64_t R, std::int64_t C) {
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t r = 0; r < R; ++r) out[b * R + r] = dot(rows + b * batchStride + r * C, vec + b * C, C);
}
SACCADE_FAST_INLINE void sumLoop(const float* weights, const float* rows, std::int64_t batchStride, float* out,
                                 std::int64_t B, std::int64_t R, std::int64_t C) {
    for (std::int64_t b = 0; b < B; ++b) {
        float* o = out + b * C;
        for (std::int64_t c = 0; c < C; ++c) o[c] = 0.0f;
        for (std::int64_t r = 0; r < R; ++r) axpy(weights[b * R + r], rows + b * batchStride + r * C, o, C);
    }
}

// Backward of both: out[b, r, :] = a[b, r] * x[b, :].
SACCADE_FAST_INLINE void outerLoop(const float* a, const float* x, float* out, std::int64_t B, std::int64_t R,
                                   std::int64_t C) {
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t r = 0; r < R; ++r) {
            const float w = a[b * R + r];
            const float* __restrict xb = x + b * C;
            float* __restrict o = out + (b * R + r) * C;
            for (std::int64_t c = 0; c < C; ++c) o[c] = w * xb[c];
        }
}

SACCADE_FAST_VARIANTS(dotRows,
                      (const float* rows, std::int64_t batchStride, const float* vec, float* out, std::int64_t B,
                       std::int64_t R, std::int64_t C),
                      (rows, batchStride, vec, out, B, R, C), dotLoop)
SACCADE_FAST_VARIANTS(sumRows,
                      (const float* weights, const float* rows, std::int64_t batchStride, float* out, std::int64_t B,
                       std::int64_t R, std::int64_t C),
                      (weights, rows, batchStride, out, B, R, C), sumLoop)
SACCADE_FAST_VARIANTS(outerRows, (const float* a, const float* x, float* out, std::int64_t B, std::int64_t R, std::int64_t C),
                      (a, x, out, B, R, C), outerLoop)

bool plainFloat(const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat && !t.is_neg() && !t.is_conj();
}

/// Whether the loops can read the operands: float CPU, `other` contiguous, rows' [R, C]
/// contiguous with a batch stride of R * C or 0.
bool loopable(const torch::Tensor& rows, const torch::Tensor& other) {
    if (!plainFloat(rows) || !plainFloat(other) || !other.is_contiguous() || rows.dim() != 3) return false;
    const auto R = rows.size(1), C = rows.size(2);
    if (rows.size(0) == 0 || R == 0 || C == 0) return false;
    return rows.stride(2) == 1 && rows.stride(1) == C && (rows.stride(0) == 0 || rows.stride(0) == R * C);
}

bool wantsGrad(const torch::Tensor& a, const torch::Tensor& b) {
    return torch::GradMode::is_enabled() && (a.requires_grad() || b.requires_grad());
}

torch::Tensor dotForward(const torch::Tensor& rows, const torch::Tensor& vec) {
    const auto B = rows.size(0), R = rows.size(1), C = rows.size(2);
    auto out = torch::empty({B, R}, vec.options());
    dotRows(rows.data_ptr<float>(), rows.stride(0), vec.data_ptr<float>(), out.data_ptr<float>(), B, R, C);
    return out;
}
torch::Tensor sumForward(const torch::Tensor& weights, const torch::Tensor& rows) {
    const auto B = rows.size(0), R = rows.size(1), C = rows.size(2);
    auto out = torch::empty({B, C}, weights.options());
    sumRows(weights.data_ptr<float>(), rows.data_ptr<float>(), rows.stride(0), out.data_ptr<float>(), B, R, C);
    return out;
}
/// [B, R, C] with out[b, r] = a[b, r] x[b]: the rows' gradient of both products.
torch::Tensor outer(const torch::Tensor& a, const torch::Tensor& x, std::int64_t R) {
    const auto B = x.size(0), C = x.size(1);
    auto out = torch::empty({B, R, C}, x.options());
    outerRows(a.data_ptr<float>(), x.data_ptr<float>(), out.data_ptr<float>(), B, R, C);
    return out;
}

// With gradients, the loops forward and backward as one autograd node each, in place of bmm's
// one BLAS call per row (and its backward's two).
struct RowsDotVectorFunction : torch::autograd::Function<RowsDotVectorFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& rows,
                                 const torch::Tensor& vec) {
        ctx->save_for_backward({rows, vec});
        return dotForward(rows, vec);
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "RowsDotVector: no double backward (create_graph)");
        const auto saved = ctx->get_saved_variables();
        const auto& rows = saved[0];
        const auto& vec = saved[1];
        if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor()};
        const auto g = grads[0].contiguous();  // [B, R]
        return {ctx->needs_input_grad(0) ? outer(g, vec, rows.size(1)) : torch::Tensor(),
                ctx->needs_input_grad(1) ? sumForward(g, rows) : torch::Tensor()};
    }
};

struct WeightedRowsFunction : torch::autograd::Function<WeightedRowsFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& weights,
                                 const torch::Tensor& rows) {
        ctx->save_for_backward({weights, rows});
        return sumForward(weights, rows);
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "WeightedRows: no double backward (create_graph)");
        const auto saved = ctx->get_saved_variables();
        const auto& weights = saved[0];
        const auto& rows = saved[1];
        if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor()};
        const auto g = grads[0].contiguous();  // [B, C]
        return {ctx->needs_input_grad(0) ? dotForward(rows, g) : torch::Tensor(),
                ctx->needs_input_grad(1) ? outer(weights, g, rows.size(1)) : torch::Tensor()};
    }
};

}  // namespace

bool batchedProductsFused(const torch::Tensor& rows, const torch::Tensor& other) { return loopable(rows, other); }

torch::Tensor rowsDotVector(const torch::Tensor& rows, const torch::Tensor& vec) {
    TORCH_CHECK(rows.dim() == 3 && vec.dim() == 2 && rows.size(0) == vec.size(0) && rows.size(2) == vec.size(1),
                "rowsDotVector needs rows [B, R, C] and vec [B, C]; got ", rows.sizes(), " and ", vec.sizes());
    if (!loopable(rows, vec)) return torch::bmm(rows, vec.unsqueeze(-1)).squeeze(-1);
    if (wantsGrad(rows, vec)) return RowsDotVectorFunction::apply(rows, vec);
    return dotForward(rows, vec);
}

torch::Tensor weightedRows(const torch::Tensor& weights, const torch::Tensor& rows) {
    TORCH_CHECK(rows.dim() == 3 && weights.dim() == 2 && rows.size(0) == weights.size(0) && rows.size(1) == weights.size(1),
                "weightedRows needs weights [B, R] and rows [B, R, C]; got ", weights.sizes(), " and ", rows.sizes());
    if (!loopable(rows, weights)) return torch::bmm(weights.unsqueeze(1), rows).squeeze(1);
    if (wantsGrad(weights, rows)) return WeightedRowsFunction::apply(weights, rows);
    return sumForward(weights, rows);
}

}  // namespace saccade
