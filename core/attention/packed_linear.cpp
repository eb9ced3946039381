#include "attention/packed_linear.h"

#include <map>
#include <tuple>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "common/packed_gemm.h"

namespace saccade {

namespace {
constexpr std::int64_t kUnscopedMinRows = 64;  // below, packing the weight costs more than it saves

struct ScopeCache {
    int depth = 0;
    // The key holds the weight's storage, shape, strides and version; the entry keeps the weight
    // alive, so that its storage cannot be reused by another tensor while the entry exists.
    using Key = std::tuple<const void*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::uint32_t>;
    std::map<Key, std::pair<torch::Tensor, torch::Tensor>> packs;  // key -> (weight, packed)
};
thread_local ScopeCache t_scope;

// B(n, k) is weight[n][k] (transposed = false) or weight[k][n] (true).
torch::Tensor packOf(const torch::Tensor& weight, bool transposed) {
    const auto N = weight.size(transposed ? 1 : 0), K = weight.size(transposed ? 0 : 1);
    const auto rowStride = weight.stride(transposed ? 1 : 0), colStride = weight.stride(transposed ? 0 : 1);
    auto build = [&] {
        auto packed = torch::empty({gemm::packedSize(N, K)}, weight.options());
        gemm::pack(weight.data_ptr<float>(), N, K, rowStride, colStride, packed.data_ptr<float>());
        return packed;
    };
    if (t_scope.depth == 0) return build();
    const ScopeCache::Key key{weight.data_ptr(), N, K, rowStride, colStride, weight._version()};
    auto it = t_scope.packs.find(key);
    if (it == t_scope.packs.end()) it = t_scope.packs.emplace(key, std::make_pair(weight, build())).first;
    return it->second.second;
}

bool runs(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    if (!gemm::available()) return false;
    const auto isPlainFloat = [](const torch::Tensor& t) {
        return t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided && !t.is_neg() &&
               !t.is_conj();
    };
    if (!isPlainFloat(x) || !isPlainFloat(weight) || x.dim() != 2 || weight.dim() != 2) return false;
    if (bias.defined() && (!isPlainFloat(bias) || bias.dim() != 1 || !bias.is_contiguous())) return false;
    if (torch::GradMode::is_enabled() &&
        (x.requires_grad() || weight.requires_grad() || (bias.defined() && bias.requires_grad())))
        return false;
    if (x.size(0) == 0 || x.size(1) == 0 || (x.size(0) > 1 && x.stride(1) != 1) || x.stride(0) < x.size(1)) return false;
    return t_scope.depth > 0 || x.size(0) >= kUnscopedMinRows;
}

torch::Tensor product(const torch::Tensor& x, const torch::Tensor& weight, bool transposed, const torch::Tensor& bias) {
    const auto M = x.size(0), K = x.size(1), N = weight.size(transposed ? 1 : 0);
    const auto packed = packOf(weight, transposed);
    auto out = torch::empty({M, N}, x.options());
    const float* a = x.data_ptr<float>();
    const float* p = packed.data_ptr<float>();
    const float* b = bias.defined() ? bias.data_ptr<float>() : nullptr;
    float* c = out.data_ptr<float>();
    const auto lda = x.stride(0);
    at::parallel_for(0, M, 64, [&](std::int64_t r0, std::int64_t r1) {
        gemm::multiply(a, lda, p, N, K, b, /*accumulate=*/false, c, N, r0, r1);
    });
    return out;
}
}  // namespace

PackedWeightScope::PackedWeightScope() { ++t_scope.depth; }
PackedWeightScope::~PackedWeightScope() {
    if (--t_scope.depth == 0) t_scope.packs.clear();
}

bool packedLinearRuns(const torch::Tensor& x, const torch::Tensor& weight) {
    return runs(x, weight, {}) && weight.size(1) == x.size(1);
}

torch::Tensor packedLinear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    if (!runs(x, weight, bias) || weight.size(1) != x.size(1) || (bias.defined() && bias.size(0) != weight.size(0)))
        return torch::nn::functional::linear(x, weight, bias);
    return product(x, weight, /*transposed=*/false, bias);
}

torch::Tensor packedMm(const torch::Tensor& x, const torch::Tensor& b) {
    if (!runs(x, b, {}) || b.size(0) != x.size(1)) return torch::mm(x, b);
    return product(x, b, /*transposed=*/true, {});
}

}  // namespace saccade
