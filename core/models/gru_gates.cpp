#include "models/gru_gates.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <torch/autograd.h>
#include <torch/torch.h>

// On x86-64 each loop is compiled twice, plain and for AVX2 + FMA, and the second runs where the
// processor has both (checked once); other machines compile the plain loop only.
#if defined(__x86_64__) && defined(__GNUC__)
#define SACCADE_GATE_VECTOR 1
#define SACCADE_GATE_AVX2 __attribute__((target("avx2,fma")))
#else
#define SACCADE_GATE_VECTOR 0
#endif
#define SACCADE_GATE_INLINE inline __attribute__((always_inline))

namespace saccade {

namespace {

// exp(x) by Cody-Waite reduction and Cephes' degree-6 polynomial (about 2 ulp in float), written
// without branches so that the loops below vectorise (the file is compiled with
// -fno-trapping-math, without which GCC keeps the clamps as branches); NaN stays NaN.
SACCADE_GATE_INLINE float gateExp(float x) {
    x = std::min(std::max(x, -87.0f), 88.0f);
    const float k = std::floor(x * 1.44269504088896341f + 0.5f);
    const float r = x - k * 0.693359375f + k * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    const std::int32_t bits = (static_cast<std::int32_t>(k) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}
SACCADE_GATE_INLINE float gateSigmoid(float x) { return 1.0f / (1.0f + gateExp(-x)); }
SACCADE_GATE_INLINE float gateTanh(float x) { return 2.0f / (1.0f + gateExp(-2.0f * x)) - 1.0f; }

// One row: o = keep * h'; s gets r, z, n and b_n ([4H]) for the backward pass.
SACCADE_GATE_INLINE void forwardRow(const float* __restrict a, const float* __restrict b, const float* __restrict h,
                                    float k, float* __restrict o, float* __restrict s, std::int64_t H) {
    for (std::int64_t j = 0; j < H; ++j) {
        const float r = gateSigmoid(a[j] + b[j]);
        const float z = gateSigmoid(a[H + j] + b[H + j]);
        const float n = gateTanh(a[2 * H + j] + r * b[2 * H + j]);
        o[j] = k * (n + z * (h[j] - n));
        s[j] = r;
        s[H + j] = z;
        s[2 * H + j] = n;
        s[3 * H + j] = b[2 * H + j];
    }
}
SACCADE_GATE_INLINE void forwardLoop(const float* a, const float* b, const float* h, const float* keep, float* out,
                                     float* saved, std::int64_t rows, std::int64_t H, bool saveEach) {
    for (std::int64_t i = 0; i < rows; ++i)
        forwardRow(a + i * 3 * H, b + i * 3 * H, h + i * H, keep ? keep[i] : 1.0f, out + i * H,
                   saved + (saveEach ? i * 4 * H : 0), H);
}

SACCADE_GATE_INLINE void backwardRow(const float* __restrict g, const float* __restrict h, float k,
                                     const float* __restrict s, float* __restrict da, float* __restrict db,
                                     float* __restrict dh, std::int64_t H) {
    for (std::int64_t j = 0; j < H; ++j) {
        const float r = s[j], z = s[H + j], n = s[2 * H + j], bn = s[3 * H + j];
        const float gk = g[j] * k;
        const float dn = gk * (1.0f - z) * (1.0f - n * n);
        const float dz = gk * (h[j] - n) * z * (1.0f - z);
        const float dr = dn * bn * r * (1.0f - r);
        da[j] = dr;
        da[H + j] = dz;
        da[2 * H + j] = dn;
        db[j] = dr;
        db[H + j] = dz;
        db[2 * H + j] = dn * r;
        dh[j] = gk * z;
    }
}
SACCADE_GATE_INLINE void backwardLoop(const float* g, const float* h, const float* keep, const float* saved, float* da,
                                      float* db, float* dh, std::int64_t rows, std::int64_t H) {
    for (std::int64_t i = 0; i < rows; ++i)
        backwardRow(g + i * H, h + i * H, keep ? keep[i] : 1.0f, saved + i * 4 * H, da + i * 3 * H, db + i * 3 * H,
                    dh + i * H, H);
}

void forwardPlain(const float* a, const float* b, const float* h, const float* keep, float* out, float* saved,
                  std::int64_t rows, std::int64_t H, bool saveEach) {
    forwardLoop(a, b, h, keep, out, saved, rows, H, saveEach);
}
void backwardPlain(const float* g, const float* h, const float* keep, const float* saved, float* da, float* db,
                   float* dh, std::int64_t rows, std::int64_t H) {
    backwardLoop(g, h, keep, saved, da, db, dh, rows, H);
}
#if SACCADE_GATE_VECTOR
SACCADE_GATE_AVX2 void forwardAvx2(const float* a, const float* b, const float* h, const float* keep, float* out,
                                   float* saved, std::int64_t rows, std::int64_t H, bool saveEach) {
    forwardLoop(a, b, h, keep, out, saved, rows, H, saveEach);
}
SACCADE_GATE_AVX2 void backwardAvx2(const float* g, const float* h, const float* keep, const float* saved, float* da,
                                    float* db, float* dh, std::int64_t rows, std::int64_t H) {
    backwardLoop(g, h, keep, saved, da, db, dh, rows, H);
}
bool hasAvx2() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
#endif

void forwardRows(const float* a, const float* b, const float* h, const float* keep, float* out, float* saved,
                 std::int64_t rows, std::int64_t H, bool saveEach) {
#if SACCADE_GATE_VECTOR
    if (hasAvx2()) return forwardAvx2(a, b, h, keep, out, saved, rows, H, saveEach);
#endif
    forwardPlain(a, b, h, keep, out, saved, rows, H, saveEach);
}
void backwardRows(const float* g, const float* h, const float* keep, const float* saved, float* da, float* db,
                  float* dh, std::int64_t rows, std::int64_t H) {
#if SACCADE_GATE_VECTOR
    if (hasAvx2()) return backwardAvx2(g, h, keep, saved, da, db, dh, rows, H);
#endif
    backwardPlain(g, h, keep, saved, da, db, dh, rows, H);
}

const float* keepData(const torch::Tensor& keep) { return keep.defined() ? keep.data_ptr<float>() : nullptr; }

struct GruGatesFunction : torch::autograd::Function<GruGatesFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b,
                                 const torch::Tensor& h, const torch::Tensor* keepPointer) {
        const auto keep = keepPointer ? *keepPointer : torch::Tensor();  // not differentiable: passed aside
        const auto B = h.size(0), H = h.size(1);
        auto out = torch::empty_like(h);
        auto saved = torch::empty({B, 4 * H}, h.options());
        forwardRows(a.data_ptr<float>(), b.data_ptr<float>(), h.data_ptr<float>(), keepData(keep), out.data_ptr<float>(),
                    saved.data_ptr<float>(), B, H, /*saveEach=*/true);
        ctx->save_for_backward({h, saved});
        if (keep.defined()) ctx->saved_data["keep"] = keep;
        return out;
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        const auto vars = ctx->get_saved_variables();
        const auto& h = vars[0];
        const auto& saved = vars[1];
        const auto found = ctx->saved_data.find("keep");
        const auto keep = found == ctx->saved_data.end() ? torch::Tensor() : found->second.toTensor();
        if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
        const auto g = grads[0].contiguous();
        const auto B = h.size(0), H = h.size(1);
        auto da = torch::empty({B, 3 * H}, h.options()), db = torch::empty({B, 3 * H}, h.options());
        auto dh = torch::empty_like(h);
        backwardRows(g.data_ptr<float>(), h.data_ptr<float>(), keepData(keep), saved.data_ptr<float>(),
                     da.data_ptr<float>(), db.data_ptr<float>(), dh.data_ptr<float>(), B, H);
        return {da, db, dh, torch::Tensor()};
    }
};

bool fusable(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h, const torch::Tensor& keep) {
    auto plain = [](const torch::Tensor& t) {
        return t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous() && !t.is_neg() && !t.is_conj();
    };
    if (!plain(a) || !plain(b) || !plain(h) || (keep.defined() && !plain(keep))) return false;
    if (h.dim() != 2 || a.dim() != 2 || b.dim() != 2) return false;
    const auto B = h.size(0), H = h.size(1);
    if (a.size(0) != B || b.size(0) != B || a.size(1) != 3 * H || b.size(1) != 3 * H) return false;
    return !keep.defined() || (keep.dim() == 1 && keep.size(0) == B);
}

}  // namespace

torch::Tensor gruGatesReference(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h,
                                const torch::Tensor& keep) {
    const auto as = a.chunk(3, 1), bs = b.chunk(3, 1);
    const auto r = torch::sigmoid(as[0] + bs[0]);
    const auto z = torch::sigmoid(as[1] + bs[1]);
    const auto n = torch::tanh(as[2] + r * bs[2]);
    const auto next = n + z * (h - n);
    return keep.defined() ? next * keep.unsqueeze(1) : next;
}

torch::Tensor gruGates(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h,
                       const torch::Tensor& keep) {
    if (!fusable(a, b, h, keep)) return gruGatesReference(a, b, h, keep);
    const bool grad = torch::GradMode::is_enabled() && (a.requires_grad() || b.requires_grad() || h.requires_grad());
    if (grad) return GruGatesFunction::apply(a, b, h, keep.defined() ? &keep : nullptr);
    const auto B = h.size(0), H = h.size(1);
    auto out = torch::empty_like(h);
    std::vector<float> scratch(static_cast<std::size_t>(4 * H));
    forwardRows(a.data_ptr<float>(), b.data_ptr<float>(), h.data_ptr<float>(), keepData(keep), out.data_ptr<float>(),
                scratch.data(), B, H, /*saveEach=*/false);
    return out;
}

}  // namespace saccade
