// The variants' forward passes in ATen operations (autograd gives their backward passes, except
// memory_efficient's, which is its own). The patterned variants lay the sequence out in blocks
// padded to a whole number of them; padded keys are masked with a finite score so that padding
// rows stay finite in the backward pass.
#include "attention/variant_kernels.h"

#include <cmath>
#include <limits>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace saccade::variants {
namespace {

double scaleOf(const torch::Tensor& q) { return 1.0 / std::sqrt(double(q.size(3))); }

/// keep [B, M] or all true; then padded with false to `total` positions, `before` of them in front.
torch::Tensor paddedKeep(const torch::Tensor& keep, const torch::Tensor& like, std::int64_t before, std::int64_t total) {
    const auto B = like.size(0), M = like.size(2);
    const auto k = keep.defined() ? keep : torch::ones({B, M}, like.options().dtype(torch::kBool));
    return torch::constant_pad_nd(k, {before, total - M - before}, 0);
}

/// x [B, H, M, d] padded with zero rows: `before` in front, up to `total` rows.
torch::Tensor padRows(const torch::Tensor& x, std::int64_t before, std::int64_t total) {
    return torch::constant_pad_nd(x, {0, 0, before, total - x.size(2) - before}, 0);
}

}  // namespace

double maskedScore(torch::ScalarType dtype) {
    if (dtype == torch::kHalf) return -6.0e4;
    return -0.5 * double(std::numeric_limits<float>::max());
}

torch::Tensor full(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& keep) {
    auto s = torch::matmul(q * scaleOf(q), k.transpose(-2, -1));
    const auto drop = keep.defined() ? keep.logical_not().unsqueeze(1).unsqueeze(1) : torch::Tensor();
    const double ninf = -std::numeric_limits<double>::infinity();
    const bool graph = torch::GradMode::is_enabled() && (q.requires_grad() || k.requires_grad() || v.requires_grad());
    if (graph) return torch::matmul(torch::softmax(drop.defined() ? s.masked_fill(drop, ninf) : s, -1), v);
    // Without a graph the N x M matrix is reused for its probabilities: one matrix, not two.
    if (drop.defined()) s.masked_fill_(drop, ninf);
    at::_softmax_out(s, s, -1, false);
    return torch::matmul(s, v);
}

torch::Tensor local(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& keep,
                    std::int64_t window) {
    // Blocks of c = window queries; block b sees key blocks b-1, b and b+1 (3c keys), of which
    // the band |i - j| <= window is kept.
    const auto B = q.size(0), H = q.size(1), N = q.size(2), d = q.size(3), dv = v.size(3);
    const auto c = window, nb = (N + c - 1) / c, total = nb * c;
    const auto qb = padRows(q * scaleOf(q), 0, total).view({B, H, nb, c, d});
    const auto kw = padRows(k, c, total + 2 * c).unfold(2, 3 * c, c);  // [B, H, nb, d, 3c]
    const auto vw = padRows(v, c, total + 2 * c).unfold(2, 3 * c, c);  // [B, H, nb, dv, 3c]
    const auto keepW = paddedKeep(keep, k, c, total + 2 * c).unfold(1, 3 * c, c);  // [B, nb, 3c]
    const auto r = torch::arange(c, q.options().dtype(torch::kLong)).unsqueeze(1);
    const auto s = torch::arange(3 * c, q.options().dtype(torch::kLong)).unsqueeze(0);
    const auto band = (r + c - s).abs() <= window;  // [c, 3c]
    const auto allowed = band.view({1, 1, 1, c, 3 * c}) & keepW.view({B, 1, nb, 1, 3 * c});
    auto scores = torch::matmul(qb, kw).masked_fill(allowed.logical_not(), maskedScore(q.scalar_type()));
    const auto out = torch::matmul(torch::softmax(scores, -1), vw.transpose(-1, -2));  // [B, H, nb, c, dv]
    return out.reshape({B, H, total, dv}).narrow(2, 0, N);
}

torch::Tensor blockSparse(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& keep, std::int64_t block, std::int64_t summary) {
    const auto B = q.size(0), H = q.size(1), N = q.size(2), d = q.size(3), dv = v.size(3);
    const auto l = block, c = summary, nb = (N + l - 1) / l, total = nb * l;
    const auto masked = maskedScore(q.scalar_type());
    const auto qs = padRows(q * scaleOf(q), 0, total);                 // [B, H, total, d]
    const auto kb = padRows(k, 0, total).view({B, H, nb, l, d});
    const auto vb = padRows(v, 0, total).view({B, H, nb, l, dv});
    const auto keepB = paddedKeep(keep, k, 0, total).view({B, nb, l});
    // Own block: [B, H, nb, l, l].
    auto sLocal = torch::matmul(qs.view({B, H, nb, l, d}), kb.transpose(-1, -2))
                      .masked_fill(keepB.logical_not().view({B, 1, nb, 1, l}), masked);
    // Summary columns (the last c keys of every block): [B, H, nb, l, nb * c]; a block's own
    // summary keys are already in its local part, so they are masked here.
    const auto ks = kb.narrow(3, l - c, c).reshape({B, H, nb * c, d});
    const auto vs = vb.narrow(3, l - c, c).reshape({B, H, nb * c, dv});
    const auto keepS = keepB.narrow(2, l - c, c).reshape({B, nb * c});
    const auto owner = torch::arange(nb * c, q.options().dtype(torch::kLong)).div(c, "floor");
    const auto own = owner.view({1, nb * c}) == torch::arange(nb, owner.options()).view({nb, 1});  // [nb, nb*c]
    const auto dropS = own.view({1, 1, nb, 1, nb * c}) | keepS.logical_not().view({B, 1, 1, 1, nb * c});
    auto sSummary = torch::matmul(qs, ks.transpose(-1, -2)).view({B, H, nb, l, nb * c}).masked_fill(dropS, masked);
    const auto p = torch::softmax(torch::cat({sLocal, sSummary}, -1), -1);
    const auto out = torch::matmul(p.narrow(-1, 0, l), vb).view({B, H, total, dv}) +
                     torch::matmul(p.narrow(-1, l, nb * c).reshape({B, H, total, nb * c}), vs);
    return out.narrow(2, 0, N);
}

torch::Tensor topK(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& keep,
                   std::int64_t topK, std::int64_t tile) {
    const auto B = q.size(0), H = q.size(1), N = q.size(2), dv = v.size(3);
    const auto masked = maskedScore(q.scalar_type());
    const auto qs = q * scaleOf(q);
    std::vector<torch::Tensor> rows;
    for (std::int64_t i0 = 0; i0 < N; i0 += tile) {
        const auto tq = std::min(tile, N - i0);
        auto s = torch::matmul(qs.narrow(2, i0, tq), k.transpose(-2, -1));  // [B, H, tq, M]
        if (keep.defined()) s = s.masked_fill(keep.logical_not().view({B, 1, 1, -1}), masked);
        auto [values, index] = s.topk(topK, -1);
        const auto p = torch::softmax(values, -1);  // [B, H, tq, K]
        const auto picked = torch::gather(v, 2, index.reshape({B, H, tq * topK, 1}).expand({B, H, tq * topK, dv}));
        rows.push_back(torch::matmul(p.unsqueeze(-2), picked.view({B, H, tq, topK, dv})).squeeze(-2));
    }
    return rows.size() == 1 ? rows[0] : torch::cat(rows, 2);
}

torch::Tensor linearFeatures(const torch::Tensor& x) { return torch::elu(x) + 1.0; }

double kernelFloor(torch::ScalarType dtype) { return dtype == torch::kHalf ? 6.2e-5 : 1e-30; }

torch::Tensor performerFeatures(const torch::Tensor& x, std::int64_t features, std::uint64_t seed, bool isQuery,
                                const torch::Tensor& keep) {
    // Orthogonal blocks of d Gaussian directions, each row rescaled to a Gaussian vector's norm,
    // drawn on the CPU in float64 from the seed so every device uses the same features.
    const auto d = x.size(3);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    const auto cpu = torch::TensorOptions().dtype(torch::kDouble);
    std::vector<torch::Tensor> blocks;
    for (std::int64_t done = 0; done < features; done += d) {
        const auto g = at::normal(0.0, 1.0, {d, d}, gen, cpu);
        const auto qr = std::get<0>(at::linalg_qr(g)).transpose(0, 1);  // rows orthonormal
        blocks.push_back(qr.narrow(0, 0, std::min(d, features - done)));
    }
    const auto norms = at::normal(0.0, 1.0, {features, d}, gen, cpu).norm(2, {1}, true);
    const auto w = (torch::cat(blocks, 0) * norms).to(x.options());  // [F, d]
    const auto xs = x * std::pow(double(d), -0.25);
    auto logits = torch::matmul(xs, w.t()) - 0.5 * (xs * xs).sum(-1, true);  // [B, H, N, F]
    // Stabilise by a constant that cancels in the ratio: per query row, or per batch and head for keys.
    // Masked keys take no part in the keys' shift: their (arbitrary) logits must not push the
    // kept keys' features to zero.
    const auto forShift = !isQuery && keep.defined()
                              ? logits.masked_fill(keep.logical_not().view({keep.size(0), 1, -1, 1}),
                                                   -std::numeric_limits<double>::infinity())
                              : logits;
    const auto shift = isQuery ? std::get<0>(logits.max(-1, true)) : forShift.amax({2, 3}, true);
    return torch::exp(logits - shift.detach()) / std::sqrt(double(features));
}

torch::Tensor kernelAttention(const torch::Tensor& phiQ, const torch::Tensor& phiK, const torch::Tensor& v,
                              const torch::Tensor& keep) {
    const auto k = keep.defined() ? phiK * keep.view({keep.size(0), 1, -1, 1}).to(phiK.scalar_type()) : phiK;
    const auto kv = torch::matmul(k.transpose(-2, -1), v);   // [B, H, F, dv]
    const auto z = k.sum(2).unsqueeze(-1);                    // [B, H, F, 1]
    const auto den = torch::matmul(phiQ, z).clamp_min(kernelFloor(phiQ.scalar_type()));  // [B, H, N, 1]
    return torch::matmul(phiQ, kv) / den;
}

}  // namespace saccade::variants
