#pragma once
// exp, sigmoid and tanh in float for the fused attention and gate loops, written without
// branches so that GCC vectorises the loops that call them, and SACCADE_FAST_VARIANTS, which
// compiles such a loop three times (plain, AVX2 + FMA, AVX-512) and runs the widest the processor
// has.
//
// A file that includes this header must be compiled with -fno-trapping-math (see
// core/CMakeLists.txt): otherwise GCC keeps the clamps below as branches and vectorises nothing.
// Plain header: no LibTorch.

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#define SACCADE_FAST_VECTOR 1
/// Marks a function compiled for AVX2 + FMA, and one for AVX-512 with 512-bit vectors (GCC
/// would otherwise keep to 256 bits).
#define SACCADE_FAST_AVX2 __attribute__((target("avx2,fma")))
#if defined(__clang__)  // clang takes no vector width in target()
#define SACCADE_FAST_AVX512 __attribute__((target("avx2,fma,avx512f")))
#else
#define SACCADE_FAST_AVX512 __attribute__((target("avx2,fma,avx512f,prefer-vector-width=512")))
#endif
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

/// The instruction sets the variants are compiled for, narrowest first.
enum class Level { Plain, Avx2, Avx512 };

/// The widest level this processor runs (checked once).
inline Level detectedLevel() {
#if SACCADE_FAST_VECTOR
    static const Level level = !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? Level::Plain
                               : __builtin_cpu_supports("avx512f")                                   ? Level::Avx512
                                                                                                     : Level::Avx2;
    return level;
#else
    return Level::Plain;
#endif
}

/// A cap on the level the variants use (tests run every variant); the widest by default.
inline std::atomic<Level>& levelCap() {
    static std::atomic<Level> cap{[] {
        const char* v = std::getenv("SACCADE_KERNELS");  // plain, avx2 or avx512 (the widest: default)
        if (v && std::strcmp(v, "plain") == 0) return Level::Plain;
        if (v && std::strcmp(v, "avx2") == 0) return Level::Avx2;
        return Level::Avx512;
    }()};
    return cap;
}

/// The level the variants run at: the narrower of detectedLevel() and levelCap().
inline Level level() {
    const Level have = detectedLevel(), cap = levelCap().load(std::memory_order_relaxed);
    return static_cast<int>(have) < static_cast<int>(cap) ? have : cap;
}

}  // namespace saccade::fast

/// Defines `void NAME PARAMS` that runs `LOOP ARGS` compiled plain, for AVX2 + FMA and for
/// AVX-512, whichever fast::level() says. LOOP must be SACCADE_FAST_INLINE so that each variant
/// gets its own copy; use the macro inside an anonymous namespace (the variants have external
/// names otherwise), e.g.
///   SACCADE_FAST_VARIANTS(scaleRows, (float* x, std::int64_t n), (x, n), scaleLoop)
#if SACCADE_FAST_VECTOR
#define SACCADE_FAST_VARIANTS(NAME, PARAMS, ARGS, LOOP)                  \
    void NAME##Plain PARAMS { LOOP ARGS; }                               \
    SACCADE_FAST_AVX2 void NAME##Avx2 PARAMS { LOOP ARGS; }              \
    SACCADE_FAST_AVX512 void NAME##Avx512 PARAMS { LOOP ARGS; }          \
    void NAME PARAMS {                                                   \
        switch (::saccade::fast::level()) {                              \
        case ::saccade::fast::Level::Avx512: return NAME##Avx512 ARGS;   \
        case ::saccade::fast::Level::Avx2: return NAME##Avx2 ARGS;       \
        case ::saccade::fast::Level::Plain: break;                       \
        }                                                                \
        NAME##Plain ARGS;                                                \
    }
#else
#define SACCADE_FAST_VARIANTS(NAME, PARAMS, ARGS, LOOP) \
    void NAME PARAMS { LOOP ARGS; }
#endif
