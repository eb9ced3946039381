#include "common/runtime.h"

#include <ATen/Parallel.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace saccade {

void setComputeThreads(int n) {
    if (n > 0) at::set_num_threads(n);
}

int computeThreads() { return at::get_num_threads(); }

void tuneAllocator() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace saccade
