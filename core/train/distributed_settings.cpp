#include "train/distributed_settings.h"

#include <cmath>
#include <cstdlib>

#include "common/parse.h"
#include "common/seed_mix.h"

namespace saccade {

Result<DistributedSettings> resolveDistributed(const DistributedFlags& flags,
                                               const std::function<const char*(const char*)>& getenv) {
    auto env = [&](const char* name) -> std::optional<std::string> {
        const char* v = getenv ? getenv(name) : std::getenv(name);
        if (!v || !*v) return std::nullopt;
        return std::string(v);
    };
    DistributedSettings s;
    auto wholeFrom = [&](const std::optional<int>& flag, const char* variable, std::int64_t lo, std::int64_t hi,
                         int fallback) -> Result<int> {
        if (flag) return *flag;
        auto text = env(variable);
        if (!text) return fallback;
        auto v = parseInteger(*text, std::string("the environment variable ") + variable, lo, hi);
        if (!v) return Error{v.error()};
        return static_cast<int>(*v);
    };
    auto world = wholeFrom(flags.worldSize, "WORLD_SIZE", 1, 4096, 1);
    if (!world) return Error{world.error()};
    auto rank = wholeFrom(flags.rank, "RANK", 0, 4095, 0);
    if (!rank) return Error{rank.error()};
    auto port = wholeFrom(flags.masterPort, "MASTER_PORT", 1, 65535, s.masterPort);
    if (!port) return Error{port.error()};
    auto local = wholeFrom(std::nullopt, "LOCAL_RANK", 0, 4095, -1);
    if (!local) return Error{local.error()};
    s.localRank = *local;
    s.worldSize = *world;
    s.rank = *rank;
    s.masterPort = *port;
    if (s.worldSize < 1 || s.worldSize > 4096) return Error{"the world size must be 1..4096"};
    if (s.rank < 0 || s.rank >= s.worldSize)
        return Error{"the rank must lie in 0.." + std::to_string(s.worldSize - 1) + " for a world size of " +
                     std::to_string(s.worldSize) + ", not " + std::to_string(s.rank)};
    if (s.masterPort < 1 || s.masterPort > 65535) return Error{"the master port must be 1..65535"};
    if (flags.masterAddr) s.masterAddr = *flags.masterAddr;
    else if (auto addr = env("MASTER_ADDR")) s.masterAddr = *addr;
    if (s.masterAddr.empty() || s.masterAddr.size() > 253 ||
        s.masterAddr.find_first_of(" \t\r\n") != std::string::npos)
        return Error{"the master address must be a host name or an IP address"};
    if (flags.timeoutSeconds) s.timeoutSeconds = *flags.timeoutSeconds;
    if (!std::isfinite(s.timeoutSeconds) || s.timeoutSeconds < 1 || s.timeoutSeconds > 86400)
        return Error{"the group timeout must be 1..86400 seconds"};
    return s;
}

Result<BatchShard> batchShard(const DistributedSettings& s, int globalBatch) {
    if (globalBatch % s.worldSize != 0)
        return Error{"the batch (" + std::to_string(globalBatch) + ") must divide evenly among the " +
                     std::to_string(s.worldSize) + " ranks: each rank computes batch / world size images"};
    const int size = globalBatch / s.worldSize;
    return BatchShard{s.rank * size, size};
}

std::uint64_t rankSeed(std::uint64_t seed, int rank) {
    return rank == 0 ? seed : mixSeed(seed, 0xd157, static_cast<std::uint64_t>(rank));
}

std::string trainingDeviceSpec(const std::string& device, const DistributedSettings& s, int cudaDevices) {
    if (device != "auto" || !s.active() || s.localRank < 0 || cudaDevices < 1) return device;
    return "cuda:" + std::to_string(s.localRank % cudaDevices);
}

std::string rankName(const DistributedSettings& s) {
    return "rank " + std::to_string(s.rank) + " of " + std::to_string(s.worldSize);
}

}  // namespace saccade
