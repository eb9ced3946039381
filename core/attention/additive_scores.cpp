#include "attention/additive_scores.h"

#include <cstdint>

#include <torch/autograd.h>
#include <torch/torch.h>

#include "common/fast_math.h"

namespace saccade {

namespace {

// One score: sixteen partial sums, so that the row vectorises (one AVX-512 vector, two AVX2
// ones) without reassociating the sum. With Save, each tanh is also written to t (the same sums
// in the same order: the same score).
template <bool Save>
SACCADE_FAST_INLINE float scoreRow(const float* __restrict q, const float* __restrict k, const float* __restrict v,
                                   float* __restrict t, std::int64_t A) {
    float acc[16] = {};
    std::int64_t a = 0;
    for (; a + 16 <= A; a += 16)
        for (int j = 0; j < 16; ++j) {
            const float h = fast::tanh(q[a + j] + k[a + j]);
            if constexpr (Save) t[a + j] = h;
            acc[j] += v[a + j] * h;
        }
    for (int j = 0; j < 8; ++j) acc[j] += acc[j + 8];
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; a < A; ++a) {
        const float h = fast::tanh(q[a] + k[a]);
        if constexpr (Save) t[a] = h;
        s += v[a] * h;
    }
    return s;
}
SACCADE_FAST_INLINE void forwardSavingLoop(const float* q, const float* keys, const float* v, float* out, float* t,
                                           std::int64_t B, std::int64_t L, std::int64_t A) {
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t l = 0; l < L; ++l)
            out[b * L + l] = scoreRow<true>(q + b * A, keys + (b * L + l) * A, v, t + (b * L + l) * A, A);
}
SACCADE_FAST_INLINE void forwardLoop(const float* q, const float* keys, std::int64_t keyBatchStride, const float* v,
                                     float* out, std::int64_t B, std::int64_t L, std::int64_t A) {
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t l = 0; l < L; ++l)
            out[b * L + l] = scoreRow<false>(q + b * A, keys + b * keyBatchStride + l * A, v, nullptr, A);
}

// One (b, l): dk = d v (1 - t^2), accumulated into dq; dv += d t. t is the tanh the forward pass
// saved (Saved) or tanh(q + k) computed again.
template <bool Saved>
SACCADE_FAST_INLINE void backwardRow(float d, const float* __restrict q, const float* __restrict k,
                                     const float* __restrict ts, const float* __restrict v, float* __restrict dk,
                                     float* __restrict dq, float* __restrict dv, std::int64_t A) {
    for (std::int64_t a = 0; a < A; ++a) {
        float t;
        if constexpr (Saved) t = ts[a];
        else t = fast::tanh(q[a] + k[a]);
        const float g = d * v[a] * (1.0f - t * t);
        dk[a] = g;
        dq[a] += g;
        dv[a] += d * t;
    }
}
SACCADE_FAST_INLINE void backwardSavedLoop(const float* grad, const float* t, const float* v, float* dk, float* dq,
                                           float* dv, std::int64_t B, std::int64_t L, std::int64_t A) {
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t l = 0; l < L; ++l)
            backwardRow<true>(grad[b * L + l], nullptr, nullptr, t + (b * L + l) * A, v, dk + (b * L + l) * A, dq + b * A,
                              dv, A);
}
SACCADE_FAST_INLINE void backwardLoop(const float* grad, const float* q, const float* keys, const float* v, float* dk,
                                      float* dq, float* dv, std::int64_t B, std::int64_t L, std::int64_t A) {
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t l = 0; l < L; ++l)
            backwardRow<false>(grad[b * L + l], q + b * A, keys + (b * L + l) * A, nullptr, v, dk + (b * L + l) * A,
                               dq + b * A, dv, A);
}

SACCADE_FAST_VARIANTS(forwardRows,
                      (const float* q, const float* keys, std::int64_t keyBatchStride, const float* v, float* out,
                       std::int64_t B, std::int64_t L, std::int64_t A),
                      (q, keys, keyBatchStride, v, out, B, L, A), forwardLoop)
SACCADE_FAST_VARIANTS(forwardSavingRows,
                      (const float* q, const float* keys, const float* v, float* out, float* t, std::int64_t B,
                       std::int64_t L, std::int64_t A),
                      (q, keys, v, out, t, B, L, A), forwardSavingLoop)
SACCADE_FAST_VARIANTS(backwardSavedRows,
                      (const float* grad, const float* t, const float* v, float* dk, float* dq, float* dv,
                       std::int64_t B, std::int64_t L, std::int64_t A),
                      (grad, t, v, dk, dq, dv, B, L, A), backwardSavedLoop)
SACCADE_FAST_VARIANTS(backwardRows,
                      (const float* grad, const float* q, const float* keys, const float* v, float* dk, float* dq,
                       float* dv, std::int64_t B, std::int64_t L, std::int64_t A),
                      (grad, q, keys, v, dk, dq, dv, B, L, A), backwardLoop)

// Up to this many tanh values (64 MB) the forward pass keeps them for the backward pass, which
// then computes no exponential; past it the backward pass recomputes them.
constexpr std::int64_t kSavedTanhLimit = std::int64_t(16) << 20;

struct AdditiveScoresFunction : torch::autograd::Function<AdditiveScoresFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& q, const torch::Tensor& keys,
                                 const torch::Tensor& v) {
        const auto B = keys.size(0), L = keys.size(1), A = keys.size(2);
        auto out = torch::empty({B, L}, q.options());
        if (B * L * A <= kSavedTanhLimit) {
            auto t = torch::empty({B, L, A}, q.options());
            forwardSavingRows(q.data_ptr<float>(), keys.data_ptr<float>(), v.data_ptr<float>(), out.data_ptr<float>(),
                              t.data_ptr<float>(), B, L, A);
            ctx->save_for_backward({q, t, v});
            ctx->saved_data["saved_tanh"] = true;
        } else {
            forwardRows(q.data_ptr<float>(), keys.data_ptr<float>(), L * A, v.data_ptr<float>(), out.data_ptr<float>(),
                        B, L, A);
            ctx->save_for_backward({q, keys, v});
            ctx->saved_data["saved_tanh"] = false;
        }
        return out;
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "AdditiveScores: no double backward (create_graph)");
        const auto saved = ctx->get_saved_variables();
        // saved[1] is the keys, or the tanh of every (query, key) pair: [B, L, A] either way.
        const auto &q = saved[0], &keysOrTanh = saved[1], &v = saved[2];
        if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor()};
        const auto g = grads[0].contiguous();
        const auto B = keysOrTanh.size(0), L = keysOrTanh.size(1), A = keysOrTanh.size(2);
        auto dk = torch::empty_like(keysOrTanh);
        auto dq = torch::zeros_like(q);
        auto dv = torch::zeros({A}, v.options());
        if (ctx->saved_data["saved_tanh"].toBool())
            backwardSavedRows(g.data_ptr<float>(), keysOrTanh.data_ptr<float>(), v.data_ptr<float>(), dk.data_ptr<float>(),
                              dq.data_ptr<float>(), dv.data_ptr<float>(), B, L, A);
        else
            backwardRows(g.data_ptr<float>(), q.data_ptr<float>(), keysOrTanh.data_ptr<float>(), v.data_ptr<float>(),
                         dk.data_ptr<float>(), dq.data_ptr<float>(), dv.data_ptr<float>(), B, L, A);
        return {dq, dk, dv.view(v.sizes())};
    }
};

bool plainFloat(const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat && !t.is_neg() && !t.is_conj();
}

}  // namespace

torch::Tensor additiveScoresReference(const torch::Tensor& query, const torch::Tensor& keys, const torch::Tensor& v) {
    return torch::matmul(torch::tanh(query.unsqueeze(1) + keys), v.reshape({-1}));
}

torch::Tensor additiveScores(const torch::Tensor& query, const torch::Tensor& keys, const torch::Tensor& v) {
    TORCH_CHECK(query.dim() == 2 && keys.dim() == 3 && query.size(0) == keys.size(0) && query.size(1) == keys.size(2) &&
                    v.numel() == keys.size(2),
                "additive scores need query [B, A], keys [B, L, A] and v [A]; got ", query.sizes(), ", ", keys.sizes(),
                " and ", v.sizes());
    const bool fusable = keys.size(0) > 0 && keys.size(1) > 0 && plainFloat(query) && plainFloat(keys) && plainFloat(v) && query.is_contiguous() &&
                         v.is_contiguous() && keys[0].is_contiguous() &&
                         (keys.stride(0) == 0 || keys.stride(0) == keys.size(1) * keys.size(2));
    if (!fusable) return additiveScoresReference(query, keys, v);
    const bool grad =
        torch::GradMode::is_enabled() && (query.requires_grad() || keys.requires_grad() || v.requires_grad());
    if (grad) return AdditiveScoresFunction::apply(query, keys.contiguous(), v);
    const auto B = keys.size(0), L = keys.size(1), A = keys.size(2);
    auto out = torch::empty({B, L}, query.options());
    forwardRows(query.data_ptr<float>(), keys.data_ptr<float>(), keys.stride(0), v.data_ptr<float>(),
                out.data_ptr<float>(), B, L, A);
    return out;
}

}  // namespace saccade
