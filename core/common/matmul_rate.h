#pragma once
// The machine's matrix-product rate, the yardstick `doctor` reports and the attention benchmark
// compares each variant against. Plain header: no LibTorch.

namespace saccade {

/// Median GFLOP/s of a float32 n x n x n matrix product on the CPU (one warm-up, then `repeats`
/// timed runs) with LibTorch's current thread count.
double measureMatmulGflops(int n, int repeats);

}  // namespace saccade
