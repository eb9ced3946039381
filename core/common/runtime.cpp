#include "common/runtime.h"

#include <ATen/Parallel.h>

namespace saccade {

void setComputeThreads(int n) {
    if (n > 0) at::set_num_threads(n);
}

int computeThreads() { return at::get_num_threads(); }

}  // namespace saccade
