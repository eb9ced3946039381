#include "models/rnn_gates.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <ATen/MemoryOverlap.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "common/fast_math.h"

namespace saccade {

namespace {

// One row: o = keep * h'; s gets r, z, n and b_n ([4H]) for the backward pass. The input gates are
// a + e and the hidden ones b + c (e: extra input rows, c: the hidden bias; zeros when absent).
SACCADE_FAST_INLINE void forwardRow(const float* __restrict a, const float* __restrict e, const float* __restrict b,
                                    const float* __restrict c, const float* __restrict h, float k, float* __restrict o,
                                    float* __restrict s, std::int64_t H) {
    for (std::int64_t j = 0; j < H; ++j) {
        const float r = fast::sigmoid((a[j] + e[j]) + (b[j] + c[j]));
        const float z = fast::sigmoid((a[H + j] + e[H + j]) + (b[H + j] + c[H + j]));
        const float bn = b[2 * H + j] + c[2 * H + j];
        const float n = fast::tanh((a[2 * H + j] + e[2 * H + j]) + r * bn);
        o[j] = k * (n + z * (h[j] - n));
        s[j] = r;
        s[H + j] = z;
        s[2 * H + j] = n;
        s[3 * H + j] = bn;
    }
}
// The rows of a sit at ids[i] when ids is given (a table), else at i; e, h and out may have row
// strides (slices of a wider tensor; e's stride 0 repeats one row of zeros).
struct GruRows {
    const float* a;
    const std::int64_t* ids;
    const float* e;
    std::int64_t eStride;
    const float* b;
    const float* c;
    const float* h;
    std::int64_t hStride;
    const float* keep;
    float* out;
    std::int64_t outStride;
    float* saved;
    bool saveEach;
    std::int64_t rows, H;
};
SACCADE_FAST_INLINE void forwardLoop(const GruRows& g) {
    const auto H = g.H;
    for (std::int64_t i = 0; i < g.rows; ++i)
        forwardRow(g.a + (g.ids ? g.ids[i] : i) * 3 * H, g.e + i * g.eStride, g.b + i * 3 * H, g.c, g.h + i * g.hStride,
                   g.keep ? g.keep[i] : 1.0f, g.out + i * g.outStride, g.saved + (g.saveEach ? i * 4 * H : 0), H);
}

SACCADE_FAST_INLINE void backwardRow(const float* __restrict g, const float* __restrict h, float k,
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
SACCADE_FAST_INLINE void backwardLoop(const float* g, const float* h, const float* keep, const float* saved, float* da,
                                      float* db, float* dh, std::int64_t rows, std::int64_t H) {
    for (std::int64_t i = 0; i < rows; ++i)
        backwardRow(g + i * H, h + i * H, keep ? keep[i] : 1.0f, saved + i * 4 * H, da + i * 3 * H, db + i * 3 * H,
                    dh + i * H, H);
}

// LSTM, one row: h' and c'; s gets i, f, g, o and tanh(c') ([5H]) for the backward pass.
SACCADE_FAST_INLINE void lstmForwardRow(const float* __restrict x, const float* __restrict c, float* __restrict ho,
                                        float* __restrict co, float* __restrict s, std::int64_t H) {
    for (std::int64_t j = 0; j < H; ++j) {
        const float i = fast::sigmoid(x[j]);
        const float f = fast::sigmoid(x[H + j]);
        const float g = fast::tanh(x[2 * H + j]);
        const float o = fast::sigmoid(x[3 * H + j]);
        const float cn = f * c[j] + i * g;
        const float tc = fast::tanh(cn);
        co[j] = cn;
        ho[j] = o * tc;
        s[j] = i;
        s[H + j] = f;
        s[2 * H + j] = g;
        s[3 * H + j] = o;
        s[4 * H + j] = tc;
    }
}
SACCADE_FAST_INLINE void lstmForwardLoop(const float* x, const float* c, float* ho, float* co, float* saved,
                                         std::int64_t rows, std::int64_t H, bool saveEach) {
    for (std::int64_t r = 0; r < rows; ++r)
        lstmForwardRow(x + r * 4 * H, c + r * H, ho + r * H, co + r * H, saved + (saveEach ? r * 5 * H : 0), H);
}
SACCADE_FAST_INLINE void lstmBackwardRow(const float* __restrict dh, const float* __restrict dc,
                                         const float* __restrict c, const float* __restrict s, float* __restrict dx,
                                         float* __restrict dcPrev, std::int64_t H) {
    for (std::int64_t j = 0; j < H; ++j) {
        const float i = s[j], f = s[H + j], g = s[2 * H + j], o = s[3 * H + j], tc = s[4 * H + j];
        const float total = dc[j] + dh[j] * o * (1.0f - tc * tc);
        dx[j] = total * g * i * (1.0f - i);
        dx[H + j] = total * c[j] * f * (1.0f - f);
        dx[2 * H + j] = total * i * (1.0f - g * g);
        dx[3 * H + j] = dh[j] * tc * o * (1.0f - o);
        dcPrev[j] = total * f;
    }
}
SACCADE_FAST_INLINE void lstmBackwardLoop(const float* dh, const float* dc, const float* c, const float* saved,
                                          float* dx, float* dcPrev, std::int64_t rows, std::int64_t H) {
    for (std::int64_t r = 0; r < rows; ++r)
        lstmBackwardRow(dh + r * H, dc + r * H, c + r * H, saved + r * 5 * H, dx + r * 4 * H, dcPrev + r * H, H);
}

SACCADE_FAST_VARIANTS(forwardRows, (const GruRows& g), (g), forwardLoop)
SACCADE_FAST_VARIANTS(backwardRows,
                      (const float* g, const float* h, const float* keep, const float* saved, float* da, float* db,
                       float* dh, std::int64_t rows, std::int64_t H),
                      (g, h, keep, saved, da, db, dh, rows, H), backwardLoop)
SACCADE_FAST_VARIANTS(lstmForwardRows,
                      (const float* x, const float* c, float* ho, float* co, float* saved, std::int64_t rows,
                       std::int64_t H, bool saveEach),
                      (x, c, ho, co, saved, rows, H, saveEach), lstmForwardLoop)
SACCADE_FAST_VARIANTS(lstmBackwardRows,
                      (const float* dh, const float* dc, const float* c, const float* saved, float* dx, float* dcPrev,
                       std::int64_t rows, std::int64_t H),
                      (dh, dc, c, saved, dx, dcPrev, rows, H), lstmBackwardLoop)

const float* keepData(const torch::Tensor& keep) { return keep.defined() ? keep.data_ptr<float>() : nullptr; }

/// The gates of contiguous a, b [B, 3H] and h [B, H] into `out`, without extra rows or a bias:
/// `saved` gets every row's [4H] when saveEach, else is one row of scratch.
void contiguousRows(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h, const torch::Tensor& keep,
                    torch::Tensor& out, float* saved, bool saveEach) {
    const auto B = h.size(0), H = h.size(1);
    const std::vector<float> zeros(static_cast<std::size_t>(3 * H), 0.0f);
    forwardRows({a.data_ptr<float>(), nullptr, zeros.data(), 0, b.data_ptr<float>(), zeros.data(), h.data_ptr<float>(), H,
                 keepData(keep), out.data_ptr<float>(), H, saved, saveEach, B, H});
}

struct GruGatesFunction : torch::autograd::Function<GruGatesFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b,
                                 const torch::Tensor& h, const torch::Tensor* keepPointer) {
        const auto keep = keepPointer ? *keepPointer : torch::Tensor();  // not differentiable: passed aside
        const auto B = h.size(0), H = h.size(1);
        auto out = torch::empty_like(h);
        auto saved = torch::empty({B, 4 * H}, h.options());
        contiguousRows(a, b, h, keep, out, saved.data_ptr<float>(), /*saveEach=*/true);
        ctx->save_for_backward({h, saved});
        if (keep.defined()) ctx->saved_data["keep"] = keep;
        return out;
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "GruGates: no double backward (create_graph)");
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

struct LstmGatesFunction : torch::autograd::Function<LstmGatesFunction> {
    static torch::autograd::tensor_list forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                                const torch::Tensor& c) {
        const auto B = c.size(0), H = c.size(1);
        auto h = torch::empty_like(c), next = torch::empty_like(c);
        auto saved = torch::empty({B, 5 * H}, c.options());
        lstmForwardRows(x.data_ptr<float>(), c.data_ptr<float>(), h.data_ptr<float>(), next.data_ptr<float>(),
                        saved.data_ptr<float>(), B, H, /*saveEach=*/true);
        ctx->save_for_backward({c, saved});
        return {h, next};
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "LstmGates: no double backward (create_graph)");
        const auto vars = ctx->get_saved_variables();
        const auto& c = vars[0];
        const auto& saved = vars[1];
        if (!grads[0].defined() && !grads[1].defined()) return {torch::Tensor(), torch::Tensor()};
        const auto dh = grads[0].defined() ? grads[0].contiguous() : torch::zeros_like(c);
        const auto dc = grads[1].defined() ? grads[1].contiguous() : torch::zeros_like(c);
        const auto B = c.size(0), H = c.size(1);
        auto dx = torch::empty({B, 4 * H}, c.options()), dcPrev = torch::empty_like(c);
        lstmBackwardRows(dh.data_ptr<float>(), dc.data_ptr<float>(), c.data_ptr<float>(), saved.data_ptr<float>(),
                         dx.data_ptr<float>(), dcPrev.data_ptr<float>(), B, H);
        return {dx, dcPrev};
    }
};

bool plainFloat(const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous() && !t.is_neg() && !t.is_conj();
}

bool fusable(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h, const torch::Tensor& keep) {
    if (!plainFloat(a) || !plainFloat(b) || !plainFloat(h) || (keep.defined() && !plainFloat(keep))) return false;
    if (h.dim() != 2 || a.dim() != 2 || b.dim() != 2) return false;
    const auto B = h.size(0), H = h.size(1);
    if (a.size(0) != B || b.size(0) != B || a.size(1) != 3 * H || b.size(1) != 3 * H) return false;
    return !keep.defined() || (keep.dim() == 1 && keep.size(0) == B);
}

// out[i] = a[ia[i]] + scale[i] b[ib[i]] (+ bias): rows of width n.
SACCADE_FAST_INLINE void tableRowsLoop(const float* a, const std::int64_t* ia, const float* b, const std::int64_t* ib,
                                       const float* scale, const float* bias, float* __restrict out, std::int64_t rows,
                                       std::int64_t n) {
    for (std::int64_t i = 0; i < rows; ++i) {
        const float* __restrict x = a + ia[i] * n;
        const float* __restrict y = b + ib[i] * n;
        const float w = scale[i];
        float* __restrict o = out + i * n;
        if (bias)
            for (std::int64_t j = 0; j < n; ++j) o[j] = (x[j] + w * y[j]) + bias[j];
        else
            for (std::int64_t j = 0; j < n; ++j) o[j] = x[j] + w * y[j];
    }
}
SACCADE_FAST_VARIANTS(tableRows,
                      (const float* a, const std::int64_t* ia, const float* b, const std::int64_t* ib,
                       const float* scale, const float* bias, float* out, std::int64_t rows, std::int64_t n),
                      (a, ia, b, ib, scale, bias, out, rows, n), tableRowsLoop)

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
    auto out = torch::empty_like(h);
    std::vector<float> scratch(static_cast<std::size_t>(4 * h.size(1)));
    contiguousRows(a, b, h, keep, out, scratch.data(), /*saveEach=*/false);
    return out;
}

std::pair<torch::Tensor, torch::Tensor> lstmGatesReference(const torch::Tensor& gates, const torch::Tensor& c) {
    const auto g = gates.chunk(4, 1);
    const auto next = torch::sigmoid(g[1]) * c + torch::sigmoid(g[0]) * torch::tanh(g[2]);
    return {torch::sigmoid(g[3]) * torch::tanh(next), next};
}

std::pair<torch::Tensor, torch::Tensor> lstmGates(const torch::Tensor& gates, const torch::Tensor& c) {
    const bool fusable = plainFloat(gates) && plainFloat(c) && c.dim() == 2 && gates.dim() == 2 &&
                         gates.size(0) == c.size(0) && gates.size(1) == 4 * c.size(1);
    if (!fusable) return lstmGatesReference(gates, c);
    if (torch::GradMode::is_enabled() && (gates.requires_grad() || c.requires_grad())) {
        auto out = LstmGatesFunction::apply(gates, c);
        return {out[0], out[1]};
    }
    const auto B = c.size(0), H = c.size(1);
    auto h = torch::empty_like(c), next = torch::empty_like(c);
    std::vector<float> scratch(static_cast<std::size_t>(5 * H));
    lstmForwardRows(gates.data_ptr<float>(), c.data_ptr<float>(), h.data_ptr<float>(), next.data_ptr<float>(),
                    scratch.data(), B, H, /*saveEach=*/false);
    return {h, next};
}

void gruGatesFromTable(const GruTableStep& step, torch::Tensor& out) {
    const auto& [table, ids, extra, b, bias, h, keep] = step;
    TORCH_CHECK(b.dim() == 2 && h.dim() == 2 && out.dim() == 2 && table.dim() == 2 && ids.dim() == 1,
                "gruGatesFromTable needs table [V, 3H], ids [B], b [B, 3H], h and out [B, H]");
    const auto B = b.size(0), H = h.size(1);
    auto rowsOk = [&](const torch::Tensor& t, std::int64_t width) {
        return t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.dim() == 2 && t.size(0) == B &&
               t.size(1) == width && t.stride(1) == 1 && (B <= 1 || t.stride(0) >= width) && !t.is_neg();
    };
    TORCH_CHECK(plainFloat(table) && table.size(1) == 3 * H && plainFloat(b) && b.size(0) == B && b.size(1) == 3 * H &&
                    rowsOk(h, H) && rowsOk(out, H) && ids.device().is_cpu() && ids.is_contiguous() &&
                    ids.scalar_type() == torch::kLong && ids.numel() == B &&
                    (!extra.defined() || rowsOk(extra, 3 * H)) &&
                    (!bias.defined() || (plainFloat(bias) && bias.dim() == 1 && bias.size(0) == 3 * H)) &&
                    (!keep.defined() || (plainFloat(keep) && keep.dim() == 1 && keep.size(0) == B)),
                "gruGatesFromTable needs float CPU tensors: table [V, 3H], ids [B] int64, extra [B, 3H], b [B, 3H], "
                "bias [3H], h and out [B, H], keep [B]");
    at::assert_no_internal_overlap(out);
    for (const auto* input : {&table, &b, &h, &extra, &bias, &keep})
        if (input->defined()) at::assert_no_overlap(out, *input);  // the loop's pointers are __restrict
    TORCH_CHECK(!torch::GradMode::is_enabled() ||
                    !(table.requires_grad() || b.requires_grad() || h.requires_grad() ||
                      (extra.defined() && extra.requires_grad()) || (bias.defined() && bias.requires_grad())),
                "gruGatesFromTable is for inference: no gradients");
    if (B > 0) {
        const auto [low, high] = torch::aminmax(ids);
        TORCH_CHECK(low.item<std::int64_t>() >= 0 && high.item<std::int64_t>() < table.size(0),
                    "gruGatesFromTable: a token id lies outside the table");
    }
    std::vector<float> scratch(static_cast<std::size_t>(4 * H));
    const std::vector<float> zeros(static_cast<std::size_t>(3 * H), 0.0f);
    forwardRows({table.data_ptr<float>(), ids.data_ptr<std::int64_t>(),
                 extra.defined() ? extra.data_ptr<float>() : zeros.data(), extra.defined() ? extra.stride(0) : 0,
                 b.data_ptr<float>(), bias.defined() ? bias.data_ptr<float>() : zeros.data(), h.data_ptr<float>(),
                 h.stride(0), keepData(keep), out.data_ptr<float>(), out.stride(0), scratch.data(), /*saveEach=*/false,
                 B, H});
}

void tableRowsInto(const torch::Tensor& a, const torch::Tensor& ia, const torch::Tensor& b, const torch::Tensor& ib,
                   const torch::Tensor& scale, const torch::Tensor& bias, torch::Tensor& out) {
    const auto B = out.size(0), N = out.size(1);
    auto ids = [&](const torch::Tensor& t) {
        return t.device().is_cpu() && t.scalar_type() == torch::kLong && t.dim() == 1 && t.size(0) == B && t.is_contiguous();
    };
    auto table = [&](const torch::Tensor& t) { return plainFloat(t) && t.dim() == 2 && t.size(1) == N && t.is_contiguous(); };
    TORCH_CHECK(out.dim() == 2 && plainFloat(out) && out.is_contiguous() && table(a) && table(b) && ids(ia) && ids(ib) &&
                    plainFloat(scale) && scale.numel() == B && scale.is_contiguous() &&
                    (!bias.defined() || (plainFloat(bias) && bias.dim() == 1 && bias.size(0) == N)),
                "tableRowsInto needs float CPU tensors: tables a and b [V, N], ids [B] int64, scale [B], bias [N], "
                "out [B, N]");
    TORCH_CHECK(!torch::GradMode::is_enabled() ||
                    !(a.requires_grad() || b.requires_grad() || scale.requires_grad() ||
                      (bias.defined() && bias.requires_grad())),
                "tableRowsInto is for inference: no gradients");
    at::assert_no_internal_overlap(out);
    for (const auto* input : {&a, &b, &scale, &bias})
        if (input->defined()) at::assert_no_overlap(out, *input);  // the loop's output is __restrict
    if (B == 0) return;
    for (const auto& [t, i] : {std::pair{&a, &ia}, std::pair{&b, &ib}}) {
        const auto [low, high] = torch::aminmax(*i);
        TORCH_CHECK(low.item<std::int64_t>() >= 0 && high.item<std::int64_t>() < t->size(0),
                    "tableRowsInto: a row id lies outside its table");
    }
    tableRows(a.data_ptr<float>(), ia.data_ptr<std::int64_t>(), b.data_ptr<float>(), ib.data_ptr<std::int64_t>(),
              scale.data_ptr<float>(), bias.defined() ? bias.data_ptr<float>() : nullptr, out.data_ptr<float>(), B, N);
}

}  // namespace saccade
