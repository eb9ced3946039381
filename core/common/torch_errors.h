#pragma once
// LibTorch's own error text, said in words where it has a known shape: an allocation that failed
// ("[enforce fail at alloc_cpu.cpp:75] ... DefaultCPUAllocator: can't allocate memory: you tried
// to allocate N bytes") becomes "out of memory: N MB could not be allocated"; anything else is
// its first line, control characters escaped.

#include <exception>
#include <string>

namespace saccade {

/// True when `e` is an allocation that failed (CPU or CUDA).
bool isOutOfMemory(const std::exception& e);
/// One line for `e`: out of memory in words (with the size asked for, when LibTorch says it),
/// else the first line of its message without LibTorch's backtrace.
std::string torchErrorLine(const std::exception& e);

}  // namespace saccade
