#pragma once
// exp, sigmoid and tanh in float for the fused attention and gate loops, written without
// branches so that GCC vectorises the loops that call them, and the switch that runs those loops
// compiled for AVX2 + FMA where the processor has both.
//
// A file that includes this header must be compiled with -fno-trapping-math (see
// core/CMakeLists.txt): otherwise GCC keeps the clamps below as branches and vectorises nothing.
// Plain header: no LibTorch.

#include <cstdint>
#include <cstring>

#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#define SACCADE_FAST_VECTOR 1
/// Marks a function compiled a second time for AVX2 + FMA.
#define SACCADE_FAST_AVX2 __attribute__((target("avx2,fma")))
#else
#define SACCADE_FAST_VECTOR 0
#endif
/// Loop bodies are inlined into each compiled variant.
#define SACCADE_FAST_INLINE inline __attribute__((always_inline))

namespace saccade::fast {

/// exp(x) by Cody-Waite reduction and Cephes' degree-6 polynomial: about 2 ulp; inputs are
/// clamped to [-87, 88] (so the result stays a normal float); NaN stays NaN.
SACCADE_FAST_INLINE float exp(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    const float kf = std::floor(x * 1.44269504088896341f + 0.5f);
    const float k = kf == kf ? kf : 0.0f;  // NaN: any finite k (r stays NaN); keeps the cast defined
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
SACCADE_FAST_INLINE float sigmoid(float x) { return 1.0f / (1.0f + fast::exp(-x)); }
/// tanh(x) = 2 sigmoid(2x) - 1: absolute error about 1e-7.
SACCADE_FAST_INLINE float tanh(float x) { return 2.0f / (1.0f + fast::exp(-2.0f * x)) - 1.0f; }

/// Whether the AVX2 + FMA variants may run here (checked once).
inline bool hasAvx2() {
#if SACCADE_FAST_VECTOR
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
#else
    return false;
#endif
}

}  // namespace saccade::fast
