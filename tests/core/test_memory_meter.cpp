// The CPU memory meter: it counts exactly the blocks it handed out, whichever thread frees them,
// and passes every other pointer (null, blocks the wrapped allocator gave before it was installed,
// oneDNN's raw buffers) through to the wrapped allocator untouched. Debian 13's LibTorch 2.6
// crashed in the old meter when oneDNN's convolution freed a buffer it had not counted.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <thread>
#include <vector>

#include <ATen/Config.h>
#include <c10/core/CPUAllocator.h>

#include "common/memory_meter.h"

namespace saccade {
namespace {

TEST(MemoryMeter, CountsTensorsAllocatedWhileInstalled) {
    memory::installCpuMemoryMeter();
    ASSERT_TRUE(memory::cpuMemoryMeterInstalled());
    const auto before = memory::resetCpuPeak();
    {
        const auto t = torch::empty({10, 1024, 1024});  // 40 MiB
        EXPECT_GE(memory::cpuBytesInUse() - before, 40 << 20);
    }
    EXPECT_GE(memory::cpuPeakBytes() - before, 40 << 20);
    EXPECT_LT(memory::cpuBytesInUse() - before, 1 << 20);  // freed
    EXPECT_GT(memory::availableSystemBytes(), 0);
}

TEST(MemoryMeter, PassesThroughBlocksItDidNotAllocate) {
    // A block from LibTorch's own allocator, freed through the meter's raw deleter: what oneDNN
    // does with a scratch buffer it got before the meter was installed.
    void* foreign = c10::GetDefaultCPUAllocator()->raw_allocate(3 << 20);
    ASSERT_NE(foreign, nullptr);
    memory::installCpuMemoryMeter();
    const auto before = memory::cpuBytesInUse();
    c10::GetCPUAllocator()->raw_deallocate(foreign);
    c10::GetCPUAllocator()->raw_deallocate(nullptr);
    EXPECT_EQ(memory::cpuBytesInUse(), before);  // neither was counted, so neither is taken off

    void* own = c10::GetCPUAllocator()->raw_allocate(5 << 20);
    EXPECT_EQ(memory::cpuBytesInUse() - before, 5 << 20);
    c10::GetCPUAllocator()->raw_deallocate(own);
    EXPECT_EQ(memory::cpuBytesInUse(), before);
}

TEST(MemoryMeter, CountsExactlyAcrossThreadsAndOneDnnConvolutions) {
    memory::installCpuMemoryMeter();
    const auto before = memory::cpuBytesInUse();
    constexpr int kThreads = 4, kRounds = 200;
    std::vector<std::vector<torch::Tensor>> made(kThreads);
    std::vector<std::thread> makers;
    for (int t = 0; t < kThreads; ++t)
        makers.emplace_back([&made, t] {
            for (int r = 0; r < kRounds; ++r) made[t].push_back(torch::full({64 + r % 7, 33}, float(t)));
        });
    for (auto& m : makers) m.join();
    EXPECT_GT(memory::cpuBytesInUse() - before, kThreads * kRounds * 64 * 33 * 4 - 1);
    // Freed by other threads than those that allocated them, while each runs convolutions.
    std::atomic<int> checks{0};
    std::vector<std::thread> freers;
    for (int t = 0; t < kThreads; ++t)
        freers.emplace_back([&made, &checks, t] {
            made[(t + 1) % kThreads].clear();
            torch::NoGradGuard noGrad;
            const auto x = torch::ones({2, 3, 40, 40}), w = torch::ones({8, 3, 3, 3});
            for (int r = 0; r < 5; ++r) {
                auto y = torch::conv2d(x, w, {}, 1, 1);
#if AT_MKLDNN_ENABLED()
                y = at::mkldnn_convolution(x, w, c10::nullopt, {1, 1}, {1, 1}, {1, 1}, 1);
#endif
                if (std::abs(y.index({0, 0, 20, 20}).item<float>() - 27.0f) < 1e-4f) ++checks;
            }
        });
    for (auto& f : freers) f.join();
    EXPECT_EQ(checks.load(), kThreads * 5);
    EXPECT_EQ(memory::cpuBytesInUse(), before);  // every counted block was freed, and only once
}

}  // namespace
}  // namespace saccade
