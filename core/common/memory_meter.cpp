#include "common/memory_meter.h"

#include <atomic>
#include <fstream>
#include <mutex>
#include <string>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

namespace saccade::memory {
namespace {

std::atomic<std::int64_t> g_inUse{0};
std::atomic<std::int64_t> g_peak{0};
std::atomic<bool> g_installed{false};

void raisePeak(std::int64_t now) {
    auto peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
}

/// What a counted block carries to its deleter: the wrapped allocator's own pointer and the size.
struct Counted {
    c10::DataPtr inner;
    std::int64_t bytes;
};

void countedDelete(void* context) {
    auto* c = static_cast<Counted*>(context);
    g_inUse.fetch_sub(c->bytes, std::memory_order_relaxed);
    delete c;  // frees the block through the wrapped allocator's deleter
}

class CountingAllocator final : public c10::Allocator {
public:
    explicit CountingAllocator(c10::Allocator* inner) : m_inner(inner) {}
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
    c10::DataPtr allocate(size_t n) override { return wrap(n); }
    void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }
#else
    c10::DataPtr allocate(size_t n) const override { return wrap(n); }
#endif

private:
    c10::DataPtr wrap(size_t n) const {
        auto inner = m_inner->allocate(n);
        void* data = inner.get();
        const auto device = inner.device();
        auto* context = new Counted{std::move(inner), static_cast<std::int64_t>(n)};
        raisePeak(g_inUse.fetch_add(context->bytes, std::memory_order_relaxed) + context->bytes);
        return {data, context, &countedDelete, device};
    }
    c10::Allocator* m_inner;
};

}  // namespace

void installCpuMemoryMeter() {
    static std::once_flag once;
    std::call_once(once, [] {
        static CountingAllocator counting(c10::GetCPUAllocator());
        c10::SetCPUAllocator(&counting, /*priority=*/100);
        g_installed = true;
    });
}

bool cpuMemoryMeterInstalled() { return g_installed; }
std::int64_t cpuBytesInUse() { return g_inUse.load(); }

std::int64_t resetCpuPeak() {
    const auto now = g_inUse.load();
    g_peak.store(now);
    return now;
}

std::int64_t cpuPeakBytes() { return g_peak.load(); }

std::int64_t availableSystemBytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::int64_t kb = 0;
    while (in >> key >> kb) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return kb * 1024;
    }
    return -1;
}

}  // namespace saccade::memory
