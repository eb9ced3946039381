#pragma once
// Measured memory of LibTorch's CPU tensors: a counting allocator wrapped around LibTorch's own
// CPU allocator, installed once for the process (installCpuMemoryMeter), that keeps the bytes in
// use and their peak since the last reset. It counts exactly the blocks it handed out: any other
// pointer freed through it (a block allocated before it was installed, a library's raw buffer,
// null) goes to the wrapped allocator uncounted and unread. Any thread may allocate and free; a
// reset and its reading belong to one measurement at a time. Plain header: no LibTorch.

#include <cstdint>

namespace saccade::memory {

/// Wraps LibTorch's current CPU allocator with the counting one; later calls do nothing.
void installCpuMemoryMeter();
bool cpuMemoryMeterInstalled();
/// Bytes of CPU tensors allocated through the meter and not yet freed.
std::int64_t cpuBytesInUse();
/// Starts a measurement: the peak becomes the bytes in use now, which are returned.
std::int64_t resetCpuPeak();
/// The most bytes in use since the last resetCpuPeak().
std::int64_t cpuPeakBytes();
/// Bytes the machine can still give (MemAvailable of /proc/meminfo), or -1 when unknown.
std::int64_t availableSystemBytes();

/// Caps this process's data (RLIMIT_DATA: heap and private mappings) at what it holds now plus
/// `extraBytes`, so an allocation past it fails (LibTorch says "can't allocate memory", which
/// torchErrorLine puts in words) instead of the kernel's out-of-memory killer ending the process
/// unannounced. `extraBytes` <= 0: 90% of availableSystemBytes(), or the environment's
/// SACCADE_MEMORY_LIMIT_MB when set (tests). Returns the cap in bytes, or -1 when none was set.
std::int64_t capDataToAvailableMemory(std::int64_t extraBytes = 0);

}  // namespace saccade::memory
