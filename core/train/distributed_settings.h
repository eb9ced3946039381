#pragma once
// Where a training process stands in a data-parallel group: the variables that torchrun and
// SLURM users already set (WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) or the CLI's
// --world-size --rank --master-addr --master-port, and the slice of every global batch that this
// rank computes. Plain types: the GUI and the CLI read these without LibTorch.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/result.h"

namespace saccade {

struct DistributedSettings {
    int worldSize = 1;  ///< 1: a single process, nothing changes
    int rank = 0;
    int localRank = -1;  ///< LOCAL_RANK (torchrun): this process's index on its node; -1 when unset
    std::string masterAddr = "127.0.0.1";  ///< where rank 0 serves the rendezvous store
    int masterPort = 29500;                ///< torchrun's default
    double timeoutSeconds = 120;           ///< rendezvous and every collective; a lost rank fails sooner
    bool active() const { return worldSize > 1; }
};

/// What the command line gave; a flag wins over its environment variable.
struct DistributedFlags {
    std::optional<int> worldSize, rank, masterPort;
    std::optional<std::string> masterAddr;
    std::optional<double> timeoutSeconds;
};

/// Reads the flags, then the environment (`getenv`, std::getenv by default) for what they leave
/// out, strictly: WORLD_SIZE=2x is an error, not 2. LOCAL_RANK, when set, picks the GPU of a rank
/// whose --device is auto (trainingDeviceSpec). RANK must lie in [0, WORLD_SIZE), the port in
/// 1..65535 (0 is not "any": every rank must know it). SLURM users map SLURM_NTASKS and
/// SLURM_PROCID to WORLD_SIZE and RANK themselves (README), as torchrun does for its workers.
Result<DistributedSettings> resolveDistributed(const DistributedFlags& flags,
                                               const std::function<const char*(const char*)>& getenv = {});

/// The rows of a global batch that `rank` computes: the batch is split evenly, so the averaged
/// gradient equals one process's gradient on the whole batch.
struct BatchShard {
    int offset = 0, size = 0;
};
/// An error unless `globalBatch` divides evenly among the ranks.
Result<BatchShard> batchShard(const DistributedSettings& settings, int globalBatch);

/// A rank's own random stream: rank 0 keeps `seed` (a single process is unchanged), every other
/// rank draws from a seed mixed with its rank.
std::uint64_t rankSeed(std::uint64_t seed, int rank);

/// The device a rank trains on: `device` itself, except that "auto" in a group with LOCAL_RANK
/// set becomes "cuda:LOCAL_RANK" modulo `cudaDevices` when there are any (torchrun's one process
/// per GPU), so ranks on one node do not share a GPU.
std::string trainingDeviceSpec(const std::string& device, const DistributedSettings& settings, int cudaDevices);

/// "rank 1 of 2" for messages.
std::string rankName(const DistributedSettings& settings);

}  // namespace saccade
