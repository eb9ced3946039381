#pragma once
// Process-wide compute settings, callable without LibTorch headers.

#include <string>

namespace saccade {

/// Sets LibTorch's intra-op thread count (n >= 1); 0 leaves the default. Call once, early.
void setComputeThreads(int n);
/// The current intra-op thread count.
int computeThreads();

/// OpenMP reads OMP_WAIT_POLICY once, when LibTorch's OpenMP runtime loads, before main(). When it
/// is unset, this sets it to PASSIVE and runs the program again (/proc/self/exe, the same
/// arguments and environment), so that idle OpenMP threads sleep instead of spinning and taking the
/// cores from the GUI and other jobs; a desktop user never exports it. A value the user set is
/// kept. Returns only when nothing was to be done or the new start failed (then the variable still
/// reaches child processes). Call first in main, before any output or thread.
void ensurePassiveOpenMpWait(char** argv);

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
