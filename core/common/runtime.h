#pragma once
// Process-wide compute settings, callable without LibTorch headers.

#include <sys/auxv.h>

#include <string>

namespace saccade {

/// Sets LibTorch's intra-op thread count (n >= 1); 0 leaves the default. Call once, early.
void setComputeThreads(int n);
/// The current intra-op thread count.
int computeThreads();

/// The value of environment variable `name`, as getenv gives it, except that OMP_WAIT_POLICY reads
/// PASSIVE when it is unset. OpenMP reads OMP_WAIT_POLICY once, in libgomp's initialiser, before
/// main(): a program answers libgomp's getenv with this (SACCADE_PASSIVE_OPENMP_WAIT() in its main
/// file), so that idle OpenMP threads sleep instead of spinning and taking the cores from the GUI
/// and other jobs, without a second start (an earlier version started the program again from
/// main() with the variable set: every call took twice as long, 0.41 -> 0.82 s for `saccade-cli`
/// alone). A value the user set is kept. Child processes inherit the real environment.
const char* environmentValue(const char* name);

/// Where OpenMP read its wait policy from its own copy of the environment (GCC 13's libgomp and
/// later, Debian 13's, read `environ` and not getenv), and it is unset there: starts the program
/// again with OMP_WAIT_POLICY=PASSIVE added (/proc/self/exe, the same arguments), as every
/// version did before. What libgomp read is what omp_display_env says (its spin count: 0 under
/// PASSIVE). Returns when nothing was to be done or the new start failed. Call first in main.
void restartUnlessOpenMpWaitsPassively(char** argv);

/// OpenBLAS falls back to its Prescott (SSE3) kernels on a processor it does not know (0.3.21 on
/// an Intel Xeon of family 6, model 207: 11.7 GFLOP/s against 85.7 with its AVX-512 kernels).
/// When it did, OPENBLAS_CORETYPE is unset and the processor has AVX-512 (F, BW, VL, DQ, CD) or
/// AVX2 with FMA: sets OPENBLAS_CORETYPE=SkylakeX or Haswell and has OpenBLAS choose its kernels
/// again in this process (gotoblas_dynamic_quit and _init, which a DYNAMIC_ARCH build exports).
/// Only where those are missing or the choice did not take does it start the program again with
/// the variable set (/proc/self/exe, the same arguments). Call first in main, before any BLAS call.
void chooseBlasKernelsForTheProcessor(char** argv);

}  // namespace saccade

/// In a program's main file, at namespace scope: the program's getenv and secure_getenv, which the
/// libraries it loads call too (the program exports them: SACCADE_EXPORTS_GETENV in CMake).
#define SACCADE_PASSIVE_OPENMP_WAIT()                                                              \
    extern "C" char* getenv(const char* name) noexcept {                                          \
        return const_cast<char*>(saccade::environmentValue(name));                                 \
    }                                                                                              \
    extern "C" char* secure_getenv(const char* name) noexcept {                                   \
        return ::getauxval(AT_SECURE) != 0 ? nullptr : const_cast<char*>(saccade::environmentValue(name)); \
    }

namespace saccade {

/// Keeps freed tensor memory in the heap instead of returning it to the kernel (glibc's
/// mmap and trim thresholds raised to 64 and 256 MiB). Tensors of a few MiB are otherwise
/// mmap'ed fresh on every step, and their page faults measured 3-6x slower batches and training
/// steps here (saccade-cli bench data). Call once at the start of main, before any tensor.
void tuneAllocator();

/// What the program is doing now ("loading the model 'x.pt'"), kept for the line an interrupted
/// program prints (the text is copied; at most 400 bytes are kept).
void setActivity(const std::string& what);

/// Installs SIGINT and SIGTERM handlers that print "PREFIX: interrupted while ACTIVITY" (or
/// "PREFIX: interrupted") on stderr and end the process with 128 + the signal, at once: a model
/// call that never returns cannot hold the program. A handler installed later (training's
/// graceful stop) takes over for its time.
void reportInterruptions(const std::string& prefix);

}  // namespace saccade
