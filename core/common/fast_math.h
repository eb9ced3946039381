#pragma once
// tanh and sigmoid in float for the fused attention and gate loops, written without
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

/// tanh(x) as x P(x^2) / Q(x^2), P and Q of degree 4 fitted for relative error on [0, 8]
/// (scripts/fit-tanh.py makes them: 2e-8 in exact arithmetic; about 4e-7 absolute in
/// float, FastMath.TanhAndSigmoidStayWithinHalfAMicro). x is clamped to [-8, 8], where tanh is
/// 1 - 2.3e-7 and the rational gives 0.99999988, one ulp below 1. No clamp of the result: one
/// costs GCC's vectorised loop more than the whole rational. Over every float of [1e-3, 9],
/// |tanh| <= 1 in the AVX2 and AVX-512 variants (fused multiply-adds); the plain variant's
/// separate roundings give 1.00000012, one ulp above 1, at two inputs just below 8 (so its
/// sigmoid -6e-8 near -16). No exponential and one division: a 16-wide vector of it costs about
/// a third of 2 / (1 + exp(-2x)) - 1, which it replaced (issue 54). NaN stays NaN.
SACCADE_FAST_INLINE float tanh(float x) {
    x = x < -8.0f ? -8.0f : x;
    x = x > 8.0f ? 8.0f : x;
    const float s = x * x;
    float p = 1.553294630e-08f;
    p = p * s + 2.209360232e-05f;
    p = p * s + 3.583098563e-03f;
    p = p * s + 1.345403572e-01f;
    p = p * s + 9.999999949e-01f;
    float q = 8.640016953e-07f;
    q = q * s + 3.430474688e-04f;
    q = q * s + 2.620772309e-02f;
    q = q * s + 4.678736420e-01f;
    q = q * s + 1.0f;
    return x * p / q;
}
/// sigmoid(x) = (1 + tanh(x / 2)) / 2: absolute error about 2e-7 (so not for the far tail's
/// relative precision: no log of it).
SACCADE_FAST_INLINE float sigmoid(float x) { return 0.5f * fast::tanh(0.5f * x) + 0.5f; }

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
