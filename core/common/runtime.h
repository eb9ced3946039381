#pragma once
// Process-wide compute settings, callable without LibTorch headers.

namespace saccade {

/// Sets LibTorch's intra-op thread count (n >= 1); 0 leaves the default. Call once, early.
void setComputeThreads(int n);
/// The current intra-op thread count.
int computeThreads();

}  // namespace saccade
