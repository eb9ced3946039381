#include "common/matmul_rate.h"

#include <torch/torch.h>

#include "common/timing.h"

namespace saccade {

double measureMatmulGflops(int n, int repeats) {
    torch::NoGradGuard noGrad;
    const auto a = torch::rand({n, n});
    const auto b = torch::rand({n, n});
    torch::Tensor c;
    const double ms = medianMs(repeats, [&] { c = torch::mm(a, b); }, /*warmups=*/1);
    return 2.0 * n * double(n) * n / (ms / 1000.0) / 1e9;
}

}  // namespace saccade
