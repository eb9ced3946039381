#include "common/memory_meter.h"

#include <atomic>
#include <fstream>
#include <mutex>
#include <string>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include "common/torch_compat.h"

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

/// Each counted block starts with this header, one cache line long so the data keeps the wrapped
/// allocator's alignment; the data pointer is also the DataPtr's context, as raw_allocate() and
/// raw_deallocate() require.
struct alignas(64) Header {
    std::int64_t bytes;
    void* innerContext;
    c10::DeleterFnPtr innerDeleter;
};
constexpr std::size_t kHeader = sizeof(Header);

void countedDelete(void* data) {
    auto* h = reinterpret_cast<Header*>(static_cast<char*>(data) - kHeader);
    g_inUse.fetch_sub(h->bytes, std::memory_order_relaxed);
    if (h->innerDeleter) h->innerDeleter(h->innerContext);  // frees the block through the wrapped allocator
}

class CountingAllocator final : public compat::AllocatorBase {
public:
    explicit CountingAllocator(c10::Allocator* inner) : m_inner(inner) {}
    c10::DeleterFnPtr raw_deleter() const override { return &countedDelete; }

private:
    c10::DataPtr allocateBytes(std::size_t n) const override {
        auto inner = m_inner->allocate(n + kHeader);
        auto* base = static_cast<char*>(inner.get());
        const auto device = inner.device();
        auto* h = reinterpret_cast<Header*>(base);
        h->bytes = static_cast<std::int64_t>(n);
        h->innerDeleter = inner.get_deleter();
        h->innerContext = inner.release_context();
        raisePeak(g_inUse.fetch_add(h->bytes, std::memory_order_relaxed) + h->bytes);
        void* data = base + kHeader;
        return {data, data, &countedDelete, device};
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
