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

/// x [M, K] W[N, K]^T + bias [N]: torch::nn::functional::linear. With gradients wanted, products
/// of at least 64 rows take the kernel too (one autograd node whose backward is packedMm and
/// packedMmTN); smaller ones are ATen's.
torch::Tensor packedLinear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias = {});
/// x [M, K] b [K, N]: torch::mm (no gradient).
torch::Tensor packedMm(const torch::Tensor& x, const torch::Tensor& b);
/// a [M, P]^T b [M, Q] -> [P, Q]: torch::mm(a.t(), b), as a weight's gradient is (no gradient).
torch::Tensor packedMmTN(const torch::Tensor& a, const torch::Tensor& b);

/// Whether packedLinear(x, weight) takes the packed kernel (for tests and benchmarks).
bool packedLinearRuns(const torch::Tensor& x, const torch::Tensor& weight);

/// A right operand packed once for many products, for code that keeps it (an autograd node that
/// needs it in its backward pass, after any scope has closed).
struct PackedOperand {
    torch::Tensor packed;       ///< undefined when the packed kernel cannot run for this operand
    std::int64_t N = 0, K = 0;  ///< the products' columns and reduction length
};
/// asWeight = false: for x [M, K] b [K, N]; true: for x [M, K] b^T with b [N, K]. The packed
/// tensor is undefined where the kernel does not run (no AVX-512, not a float CPU matrix).
PackedOperand packOperand(const torch::Tensor& b, bool asWeight);
/// out [M, N] = (accumulate ? out : 0) + x [M, K] times the operand. x and out: float CPU
/// matrices with unit column stride (slices of wider ones allowed); p.packed must be defined.
void multiplyInto(const torch::Tensor& x, const PackedOperand& p, torch::Tensor& out, bool accumulate);

}  // namespace saccade
