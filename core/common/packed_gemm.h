#pragma once
// A matrix product for the shapes the recurrent models run at every step (a batch of up to a few
// thousand rows against a weight of a few hundred by a few hundred), with 512-bit vectors.
//
// OpenBLAS runs AVX2 kernels on processors it does not know, or when OPENBLAS_CORETYPE says so
// (this development machine sets Haswell): about 100 GFLOP/s on one core here. This kernel keeps
// 8 rows x 32 columns of the result in sixteen 512-bit registers and streams the weight from a
// packed copy (32-column panels, k-major), about 200 GFLOP/s on the same core. Each result is one
// sequential sum over k with fused multiply-adds, so it does not depend on the thread count or on
// how the rows are split. Plain header: no LibTorch.
#include <cstdint>

namespace saccade::gemm {

/// Whether multiply() can run here: an x86-64 processor with AVX-512F, and fast::level() not
/// capped below it.
bool available();

/// Floats a packed copy of an N x K matrix takes.
std::int64_t packedSize(std::int64_t N, std::int64_t K);

/// Packs B (element (n, k) at b[n * rowStride + k * colStride]) into 32-row panels: panel p holds,
/// for each k, B(32p + c, k) for c = 0..31, zeros past N. out holds packedSize(N, K) floats.
void pack(const float* b, std::int64_t N, std::int64_t K, std::int64_t rowStride, std::int64_t colStride, float* out);

/// For rows i in [r0, r1): C[i, n] = sum_k A(i, k) B(n, k), plus bias[n] when bias is given, plus
/// the C already there when accumulate is true. A(i, k) is A[i * aRow + k * aCol] (any strides: a
/// transposed view needs no copy), C has row stride ldc and unit column stride; packed is pack()'s
/// output for B.
void multiply(const float* A, std::int64_t aRow, std::int64_t aCol, const float* packed, std::int64_t N, std::int64_t K,
              const float* bias, bool accumulate, float* C, std::int64_t ldc, std::int64_t r0, std::int64_t r1);

}  // namespace saccade::gemm
