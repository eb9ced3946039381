#include "common/runtime.h"

#include <ATen/Parallel.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace saccade {

void setComputeThreads(int n) {
    if (n <= 0) return;
    at::set_num_threads(n);
    // OpenBLAS keeps its own pool (one thread per core), whose idle threads spin in sched_yield
    // beside LibTorch's: give it the same count when it is the BLAS in use.
    using SetThreads = void (*)(int);
    if (auto* set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(n);
}

int computeThreads() { return at::get_num_threads(); }

void ensurePassiveOpenMpWait(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
    if (::setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
    ::execv("/proc/self/exe", argv);
}

void tuneAllocator() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace saccade
