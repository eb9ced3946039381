#pragma once
// What every trainer takes: the budget, schedule, seed, device, files and evaluation cadence.
// Plain types.

#include <cstdint>
#include <string>

#include "train/distributed_settings.h"

namespace saccade {

/// The options every trainer shares; each family's options derive from these and set their own
/// defaults.
struct TrainCommonOptions {
    int batch = 128;
    double lr = 2e-3;
    double finalLrFraction = 0.05;  ///< the cosine schedule ends at lr * this
    double minutes = 0;             ///< time budget; fixes the iteration count after warm-up
    std::int64_t iterations = 0;    ///< exact iteration count (wins over minutes)
    std::uint64_t seed = 1;
    std::string device = "auto";
    std::string out;                ///< checkpoint path (.pt); sidecar and metrics beside it
    std::string resume;             ///< a checkpoint to continue
    std::int64_t evalEvery = 500;   ///< iterations between evaluations (an "epoch" of the log)
    std::int64_t evalImages = 1000; ///< test images per evaluation
    std::string command;            ///< recorded in the sidecar
    /// Data-parallel training: `batch` is the global batch, split evenly among the ranks.
    DistributedSettings distributed;
};

}  // namespace saccade
