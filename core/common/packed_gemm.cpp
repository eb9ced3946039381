#include "common/packed_gemm.h"

#include <algorithm>
#include <cstring>

#include "common/fast_math.h"

#if SACCADE_FAST_VECTOR
#include <immintrin.h>
#endif

namespace saccade::gemm {

namespace {
constexpr std::int64_t kPanel = 32;   // columns of the result per panel: two 512-bit vectors
constexpr std::int64_t kRows = 8;     // rows per micro-kernel: 16 accumulators of 16 floats
constexpr std::int64_t kChunk = 64;   // rows whose A (64 x K floats) stays in cache across panels

#if SACCADE_FAST_VECTOR
// R rows of A against one panel: the result's R x 32 block, written under the column masks.
template <int R>
SACCADE_FAST_AVX512 inline void block(const float* a, std::int64_t lda, std::int64_t acs, const float* panel, std::int64_t K,
                                      const float* bias, bool accumulate, float* c, std::int64_t ldc, __mmask16 m0,
                                      __mmask16 m1) {
    __m512 c0[R], c1[R];
    const __m512 b0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
    // The second half is not addressed at all when no column of it is used (m1 == 0): bias + 16
    // and c + 16 may lie past the end of their arrays then.
    const __m512 b1 = bias && m1 ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
    for (int r = 0; r < R; ++r) {
        c0[r] = accumulate ? _mm512_add_ps(b0, _mm512_maskz_loadu_ps(m0, c + r * ldc)) : b0;
        c1[r] = accumulate && m1 ? _mm512_add_ps(b1, _mm512_maskz_loadu_ps(m1, c + r * ldc + 16)) : b1;
    }
    for (std::int64_t k = 0; k < K; ++k) {
        const __m512 p0 = _mm512_loadu_ps(panel + k * kPanel), p1 = _mm512_loadu_ps(panel + k * kPanel + 16);
        for (int r = 0; r < R; ++r) {
            const __m512 x = _mm512_set1_ps(a[r * lda + k * acs]);
            c0[r] = _mm512_fmadd_ps(x, p0, c0[r]);
            c1[r] = _mm512_fmadd_ps(x, p1, c1[r]);
        }
    }
    for (int r = 0; r < R; ++r) {
        _mm512_mask_storeu_ps(c + r * ldc, m0, c0[r]);
        if (m1) _mm512_mask_storeu_ps(c + r * ldc + 16, m1, c1[r]);
    }
}

template <int R>
SACCADE_FAST_AVX512 inline void rest(const float* a, std::int64_t lda, std::int64_t acs, const float* panel, std::int64_t K,
                                     const float* bias, bool accumulate, float* c, std::int64_t ldc, __mmask16 m0,
                                     __mmask16 m1, std::int64_t rows) {
    if constexpr (R > 1) {
        if (rows < R) return rest<R - 1>(a, lda, acs, panel, K, bias, accumulate, c, ldc, m0, m1, rows);
    }
    block<R>(a, lda, acs, panel, K, bias, accumulate, c, ldc, m0, m1);
}

SACCADE_FAST_AVX512 void multiplyAvx512(const float* A, std::int64_t lda, std::int64_t acs, const float* packed, std::int64_t N,
                                        std::int64_t K, const float* bias, bool accumulate, float* C, std::int64_t ldc,
                                        std::int64_t r0, std::int64_t r1) {
    const std::int64_t panels = (N + kPanel - 1) / kPanel;
    for (std::int64_t i0 = r0; i0 < r1; i0 += kChunk) {
        const std::int64_t i1 = std::min(r1, i0 + kChunk);
        for (std::int64_t p = 0; p < panels; ++p) {
            const std::int64_t cols = std::min(kPanel, N - p * kPanel);
            const auto m0 = static_cast<__mmask16>(cols >= 16 ? 0xFFFFu : (1u << cols) - 1u);
            const auto m1 = static_cast<__mmask16>(cols >= 32 ? 0xFFFFu : cols <= 16 ? 0u : (1u << (cols - 16)) - 1u);
            const float* panel = packed + p * K * kPanel;
            const float* pb = bias ? bias + p * kPanel : nullptr;
            std::int64_t i = i0;
            for (; i + kRows <= i1; i += kRows)
                block<kRows>(A + i * lda, lda, acs, panel, K, pb, accumulate, C + i * ldc + p * kPanel, ldc, m0, m1);
            if (i < i1)
                rest<kRows - 1>(A + i * lda, lda, acs, panel, K, pb, accumulate, C + i * ldc + p * kPanel, ldc, m0, m1,
                                i1 - i);
        }
    }
}
#endif
}  // namespace

bool available() {
#if SACCADE_FAST_VECTOR
    return fast::level() == fast::Level::Avx512;
#else
    return false;
#endif
}

std::int64_t packedSize(std::int64_t N, std::int64_t K) { return (N + kPanel - 1) / kPanel * kPanel * K; }

void pack(const float* b, std::int64_t N, std::int64_t K, std::int64_t rowStride, std::int64_t colStride, float* out) {
    const std::int64_t panels = (N + kPanel - 1) / kPanel;
    for (std::int64_t p = 0; p < panels; ++p) {
        const std::int64_t cols = std::min(kPanel, N - p * kPanel);
        float* panel = out + p * K * kPanel;
        const float* first = b + p * kPanel * rowStride;
        if (rowStride == 1) {  // B's columns n are contiguous (x W with W [K, N] row-major): rows of floats
            for (std::int64_t k = 0; k < K; ++k) {
                std::memcpy(panel + k * kPanel, first + k * colStride, std::size_t(cols) * sizeof(float));
                std::fill(panel + k * kPanel + cols, panel + (k + 1) * kPanel, 0.0f);
            }
            continue;
        }
        // Otherwise one of B's rows n at a time (contiguous when colStride is 1, as for a weight
        // [N, K]), written down its column of the panel.
        for (std::int64_t c = 0; c < cols; ++c) {
            const float* row = first + c * rowStride;
            for (std::int64_t k = 0; k < K; ++k) panel[k * kPanel + c] = row[k * colStride];
        }
        for (std::int64_t c = cols; c < kPanel; ++c)
            for (std::int64_t k = 0; k < K; ++k) panel[k * kPanel + c] = 0.0f;
    }
}

void multiply(const float* A, std::int64_t aRow, std::int64_t aCol, const float* packed, std::int64_t N, std::int64_t K,
              const float* bias, bool accumulate, float* C, std::int64_t ldc, std::int64_t r0, std::int64_t r1) {
#if SACCADE_FAST_VECTOR
    if (available()) return multiplyAvx512(A, aRow, aCol, packed, N, K, bias, accumulate, C, ldc, r0, r1);
#endif
    // Not reached through the LibTorch layer, which checks available(); kept exact for any caller.
    for (std::int64_t i = r0; i < r1; ++i)
        for (std::int64_t n = 0; n < N; ++n) {
            const float* col = packed + (n / kPanel) * K * kPanel + n % kPanel;
            float s = 0.0f;
            for (std::int64_t k = 0; k < K; ++k) s += A[i * aRow + k * aCol] * col[k * kPanel];
            C[i * ldc + n] = (accumulate ? C[i * ldc + n] : 0.0f) + (bias ? bias[n] : 0.0f) + s;
        }
}

}  // namespace saccade::gemm
