#pragma once
// Matrix products of the recurrent models' inference steps on gemm::multiply (common/packed_gemm.h)
// where it runs (AVX-512 on the CPU, float, no gradient wanted), else ATen's. A weight is packed
// on first use inside a PackedWeightScope and reused by every later step of that scope.
// Engine header: includes LibTorch.

#include <torch/types.h>

namespace saccade {

/// While one is alive on this thread, each weight given to packedLinear/packedMm is packed once
/// and reused (a weight changed in place is packed again: the key holds its version counter).
/// Outside a scope every call packs its weight, and products of fewer than 64 rows go to ATen.
class PackedWeightScope {
public:
    PackedWeightScope();
    ~PackedWeightScope();
    PackedWeightScope(const PackedWeightScope&) = delete;
    PackedWeightScope& operator=(const PackedWeightScope&) = delete;
};

/// x [M, K] W[N, K]^T + bias [N]: torch::nn::functional::linear.
torch::Tensor packedLinear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias = {});
/// x [M, K] b [K, N]: torch::mm.
torch::Tensor packedMm(const torch::Tensor& x, const torch::Tensor& b);

/// Whether packedLinear(x, weight) takes the packed kernel (for tests and benchmarks).
bool packedLinearRuns(const torch::Tensor& x, const torch::Tensor& weight);

}  // namespace saccade
