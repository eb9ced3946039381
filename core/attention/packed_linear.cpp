#include "attention/packed_linear.h"

#include <map>
#include <tuple>

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "common/packed_gemm.h"

namespace saccade {

namespace {
constexpr std::int64_t kUnscopedMinRows = 64;  // below, packing the weight costs more than it saves
constexpr std::int64_t kGradMinRows = 64;      // with a gradient, the backward pass packs two more

struct ScopeCache {
    int depth = 0;
    // The key holds the weight's storage, shape, strides and version; the entry keeps the weight
    // alive, so that its storage cannot be reused by another tensor while the entry exists.
    using Key = std::tuple<const void*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::uint32_t>;
    std::map<Key, std::pair<torch::Tensor, torch::Tensor>> packs;  // key -> (weight, packed)
};
thread_local ScopeCache t_scope;

// The packed copy of B, where B(n, k) is weight[n][k] (transposed = false) or weight[k][n] (true).
torch::Tensor packed(const torch::Tensor& weight, bool transposed) {
    const auto N = weight.size(transposed ? 1 : 0), K = weight.size(transposed ? 0 : 1);
    auto out = torch::empty({gemm::packedSize(N, K)}, weight.options().requires_grad(false));
    gemm::pack(weight.data_ptr<float>(), N, K, weight.stride(transposed ? 1 : 0), weight.stride(transposed ? 0 : 1),
               out.data_ptr<float>());
    return out;
}

// packed(), once per weight inside a scope.
torch::Tensor packOf(const torch::Tensor& weight, bool transposed) {
    if (t_scope.depth == 0) return packed(weight, transposed);
    const ScopeCache::Key key{weight.data_ptr(),       weight.size(transposed ? 1 : 0), weight.size(transposed ? 0 : 1),
                              weight.stride(transposed ? 1 : 0), weight.stride(transposed ? 0 : 1), weight._version()};
    auto it = t_scope.packs.find(key);
    if (it == t_scope.packs.end()) it = t_scope.packs.emplace(key, std::make_pair(weight, packed(weight, transposed))).first;
    return it->second.second;
}

bool isPlainFloat(const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided && !t.is_neg() &&
           !t.is_conj();
}

bool wantsGrad(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    return torch::GradMode::is_enabled() &&
           (x.requires_grad() || weight.requires_grad() || (bias.defined() && bias.requires_grad()));
}

bool runs(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias, bool gradAllowed = false) {
    if (!gemm::available()) return false;
    if (!isPlainFloat(x) || !isPlainFloat(weight) || x.dim() != 2 || weight.dim() != 2) return false;
    if (bias.defined() && (!isPlainFloat(bias) || bias.dim() != 1 || !bias.is_contiguous())) return false;
    if (wantsGrad(x, weight, bias) && (!gradAllowed || x.size(0) < kGradMinRows)) return false;
    if (x.size(0) == 0 || x.size(1) == 0) return false;  // any strides: the kernel reads A(i, k) by both
    return t_scope.depth > 0 || x.size(0) >= kUnscopedMinRows;
}

void run(const torch::Tensor& x, const torch::Tensor& packed, std::int64_t N, const float* bias, bool accumulate,
         torch::Tensor& out) {
    const auto M = x.size(0), K = x.size(1);
    const float* a = x.data_ptr<float>();
    const float* p = packed.data_ptr<float>();
    float* c = out.data_ptr<float>();
    const auto aRow = x.stride(0), aCol = x.stride(1), ldc = out.stride(0);
    at::parallel_for(0, M, 64, [&](std::int64_t r0, std::int64_t r1) {
        gemm::multiply(a, aRow, aCol, p, N, K, bias, accumulate, c, ldc, r0, r1);
    });
}

torch::Tensor product(const torch::Tensor& x, const torch::Tensor& weight, bool transposed, const torch::Tensor& bias) {
    const auto N = weight.size(transposed ? 1 : 0);
    auto out = torch::empty({x.size(0), N}, x.options());
    run(x, packOf(weight, transposed), N, bias.defined() ? bias.data_ptr<float>() : nullptr, false, out);
    return out;
}
// x W^T + bias with its gradients: dx = g W, dW = g^T x, dbias = sum of g's rows. The bias comes
// as a list of zero or one tensor (LibTorch 1.13's Function takes no undefined tensor).
struct PackedLinearFunction : torch::autograd::Function<PackedLinearFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                                 at::TensorList bias) {
        ctx->save_for_backward({x, weight});
        ctx->saved_data["bias"] = !bias.empty();
        return product(x, weight, /*transposed=*/false, bias.empty() ? torch::Tensor() : bias[0]);
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
        TORCH_CHECK(!torch::GradMode::is_enabled(), "packedLinear: no double backward (create_graph)");
        const auto saved = ctx->get_saved_variables();
        const auto &x = saved[0], &weight = saved[1];
        const bool hasBias = ctx->saved_data["bias"].toBool();
        torch::autograd::tensor_list result(hasBias ? 3 : 2);
        if (!grads[0].defined()) return result;
        const auto g = grads[0].contiguous();
        if (ctx->needs_input_grad(0)) result[0] = packedMm(g, weight);
        if (ctx->needs_input_grad(1)) result[1] = packedMmTN(g, x);
        if (hasBias && ctx->needs_input_grad(2)) result[2] = g.sum(0);
        return result;
    }
};
}  // namespace

PackedWeightScope::PackedWeightScope() { ++t_scope.depth; }
PackedWeightScope::~PackedWeightScope() {
    if (--t_scope.depth == 0) t_scope.packs.clear();
}

bool packedLinearRuns(const torch::Tensor& x, const torch::Tensor& weight) {
    return runs(x, weight, {}, /*gradAllowed=*/true) && weight.size(1) == x.size(1);
}

torch::Tensor packedLinear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    if (!runs(x, weight, bias, /*gradAllowed=*/true) || weight.size(1) != x.size(1) ||
        (bias.defined() && bias.size(0) != weight.size(0)))
        return torch::nn::functional::linear(x, weight, bias);
    if (wantsGrad(x, weight, bias)) {
        std::vector<torch::Tensor> biasList;
        if (bias.defined()) biasList.push_back(bias);
        return PackedLinearFunction::apply(x, weight, at::TensorList(biasList));
    }
    return product(x, weight, /*transposed=*/false, bias);
}

PackedOperand packOperand(const torch::Tensor& b, bool asWeight) {
    PackedOperand p;
    if (b.dim() != 2) return p;
    p.N = b.size(asWeight ? 0 : 1);
    p.K = b.size(asWeight ? 1 : 0);
    if (gemm::available() && isPlainFloat(b)) p.packed = packed(b.detach(), /*transposed=*/!asWeight);
    return p;
}

void multiplyInto(const torch::Tensor& x, const PackedOperand& p, torch::Tensor& out, bool accumulate) {
    TORCH_CHECK(p.packed.defined(), "multiplyInto: the operand was not packed");
    TORCH_CHECK(x.dim() == 2 && out.dim() == 2 && x.size(1) == p.K && out.size(0) == x.size(0) && out.size(1) == p.N,
                "multiplyInto: shapes ", x.sizes(), " and [", p.K, ", ", p.N, "] into ", out.sizes());
    TORCH_CHECK(x.scalar_type() == torch::kFloat && out.scalar_type() == torch::kFloat && x.device().is_cpu() &&
                    out.device().is_cpu() && (out.size(1) <= 1 || out.stride(1) == 1),
                "multiplyInto: float CPU matrices, the result with unit column stride");
    if (x.size(0) == 0) return;
    run(x, p.packed, p.N, nullptr, accumulate, out);
}

torch::Tensor packedMm(const torch::Tensor& x, const torch::Tensor& b) {
    if (!runs(x, b, {}) || b.size(0) != x.size(1)) return torch::mm(x, b);
    return product(x, b, /*transposed=*/true, {});
}

torch::Tensor packedMmTN(const torch::Tensor& a, const torch::Tensor& b) {
    if (!gemm::available() || wantsGrad(a, b, {}) || a.dim() != 2 || b.dim() != 2 || a.size(0) != b.size(0) || !isPlainFloat(a) ||
        !isPlainFloat(b))
        return torch::mm(a.t(), b);
    // [P, M] copied: the kernel could read the transposed view in place, but a step of k then
    // jumps a whole row of a (4 KB at P = 1,024), and measured slower than the copy.
    const auto aT = a.t().contiguous();
    if (!runs(aT, b, {})) return torch::mm(a.t(), b);
    return product(aT, b, /*transposed=*/true, {});
}

}  // namespace saccade
