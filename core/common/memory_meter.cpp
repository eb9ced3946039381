#include "common/memory_meter.h"

#include <array>
#include <sys/resource.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

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

/// What the meter handed out: the block's size and how the wrapped allocator frees it.
struct Block {
    std::int64_t bytes;
    void* innerContext;
    c10::DeleterFnPtr innerDeleter;
};

/// The blocks the meter allocated and has not freed, keyed by their data pointer, in shards so
/// that threads allocating at once rarely wait on one another. A pointer the registry does not
/// hold (null, a block the wrapped allocator gave before the meter was installed, or one that a
/// library such as oneDNN got through raw_allocate() then) is passed through to the wrapped
/// allocator's deleter uncounted: the meter never reads memory it did not write.
class Registry {
public:
    void add(void* data, Block b) {
        auto& s = shard(data);
        std::lock_guard<std::mutex> lock(s.mutex);
        s.blocks.emplace(data, b);
    }
    bool take(void* data, Block& out) {
        auto& s = shard(data);
        std::lock_guard<std::mutex> lock(s.mutex);
        const auto it = s.blocks.find(data);
        if (it == s.blocks.end()) return false;
        out = it->second;
        s.blocks.erase(it);
        return true;
    }

private:
    struct Shard {
        std::mutex mutex;
        std::unordered_map<void*, Block> blocks;
    };
    Shard& shard(void* p) { return m_shards[(reinterpret_cast<std::uintptr_t>(p) >> 6) % m_shards.size()]; }
    std::array<Shard, 32> m_shards;
};

Registry& registry() {
    static auto* r = new Registry;  // never destroyed: tensors may be freed during static destruction
    return *r;
}

/// The wrapped allocator's deleter for blocks the meter did not hand out.
std::atomic<c10::DeleterFnPtr> g_passThrough{nullptr};

void countedDelete(void* data) {
    if (!data) return;
    Block b{};
    if (registry().take(data, b)) {
        g_inUse.fetch_sub(b.bytes, std::memory_order_relaxed);
        if (b.innerDeleter) b.innerDeleter(b.innerContext);
        return;
    }
    if (const auto pass = g_passThrough.load()) pass(data);
}

class CountingAllocator final : public compat::AllocatorBase {
public:
    explicit CountingAllocator(c10::Allocator* inner) : m_inner(inner) {}
    c10::DeleterFnPtr raw_deleter() const override { return &countedDelete; }

private:
    c10::DataPtr allocateBytes(std::size_t n) const override {
        auto inner = m_inner->allocate(n);
        void* data = inner.get();
        const auto device = inner.device();
        if (!data) return inner;  // nothing to count (LibTorch may give no block for 0 bytes)
        Block b{static_cast<std::int64_t>(n), nullptr, inner.get_deleter()};
        b.innerContext = inner.release_context();
        registry().add(data, b);
        raisePeak(g_inUse.fetch_add(b.bytes, std::memory_order_relaxed) + b.bytes);
        return {data, data, &countedDelete, device};
    }
    c10::Allocator* m_inner;
};

}  // namespace

void installCpuMemoryMeter() {
    static std::once_flag once;
    std::call_once(once, [] {
        auto* inner = c10::GetCPUAllocator();
        g_passThrough = inner->raw_deleter();
        static CountingAllocator counting(inner);
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

namespace {

/// VmData of /proc/self/status: the data this process holds now, in bytes; -1 when unknown.
std::int64_t dataBytesNow() {
    std::ifstream in("/proc/self/status");
    std::string key, unit;
    std::int64_t kb = 0;
    while (in >> key) {
        if (key == "VmData:" && in >> kb) return kb * 1024;
        std::getline(in, unit);
    }
    return -1;
}

}  // namespace

std::int64_t capDataToAvailableMemory(std::int64_t extraBytes) {
    if (extraBytes <= 0) {
        if (const char* mb = std::getenv("SACCADE_MEMORY_LIMIT_MB"); mb && std::atoll(mb) > 0)
            extraBytes = std::int64_t(std::atoll(mb)) << 20;
        else if (const auto available = availableSystemBytes(); available > 0)
            extraBytes = available / 10 * 9;
    }
    const auto now = dataBytesNow();
    if (extraBytes <= 0 || now < 0) return -1;
    rlimit limit{};
    if (::getrlimit(RLIMIT_DATA, &limit) != 0) return -1;
    const auto cap = static_cast<rlim_t>(now + extraBytes);
    if (limit.rlim_max != RLIM_INFINITY && cap > limit.rlim_max) return -1;
    limit.rlim_cur = cap;
    return ::setrlimit(RLIMIT_DATA, &limit) == 0 ? std::int64_t(cap) : -1;
}

}  // namespace saccade::memory
