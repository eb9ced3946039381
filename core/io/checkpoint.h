#pragma once
// Checkpoints: a LibTorch archive (weights, and optimizer state for resuming) plus a JSON sidecar
// beside it (same name, .json) that says what the weights are: model type and config, dataset,
// seed, git revision, metrics, format version. Both files are written atomically.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/atomic_file.h"
#include "common/result.h"

namespace c10 { struct Device; }
namespace torch::nn { class Module; }
namespace torch::optim { class Optimizer; }

namespace saccade {

constexpr int kCheckpointFormatVersion = 1;

struct CheckpointInfo {
    int formatVersion = kCheckpointFormatVersion;
    std::string modelType;   ///< "patch"
    std::string configJson;  ///< the model's config object
    std::string dataset;
    std::uint64_t seed = 0;
    std::string gitRevision;
    std::string command;      ///< the saccade-cli command that re-creates it
    std::string metricsJson = "{}";  ///< per-rule accuracies and training figures
    std::int64_t iteration = 0;       ///< training iterations done
    std::int64_t totalIterations = 0; ///< the planned total (for resume and schedules)
    /// The schedules it ran under before the current one, oldest first: a run resumed with another
    /// --iterations ends one at the iteration it resumed from. Each is {that iteration, the total
    /// it annealed to}. Empty: one schedule from the start.
    std::vector<std::pair<std::int64_t, std::int64_t>> earlierSchedules;
    double baseline = 0;              ///< REINFORCE moving-average baseline at save time
    std::string weightsCrc32;         ///< CRC-32 of the .pt file, hex ("" in older sidecars)
};

/// CRC-32 of `bytes` as 8 lower-case hex digits (what sidecars and sessions record).
std::string crc32Hex(const std::string& bytes);
/// CRC-32 of a file's bytes (files up to 4 GiB), or why it cannot be read.
Result<std::string> fileCrc32(const std::string& path);

/// "model.pt" -> "model.json".
std::string sidecarPath(const std::string& checkpointPath);

/// The files a checkpoint at `path` comes with: its sidecar (.json) and its metrics
/// (.metrics.csv, .metrics.json), in that order.
std::vector<std::string> checkpointCompanions(const std::string& path);

/// Writes weights (and the optimizer state when given) and the sidecar, each atomically.
Result<Unit> saveCheckpoint(const torch::nn::Module& model, const torch::optim::Optimizer* optimizer,
                            const CheckpointInfo& info, const std::string& path);

/// Reads and checks the sidecar: a missing file, bad JSON, another format, or a newer version is
/// an Error naming the file and the problem.
Result<CheckpointInfo> readCheckpointInfo(const std::string& path);

/// Checks, before any training, that a checkpoint can be written at `path`: it is given and its
/// folder exists (the error says which).
Result<Unit> checkOutputPath(const std::string& path);

/// Loads weights into `model` (and the optimizer when given: a resume; a checkpoint without
/// optimizer state, a stripped copy, is then an Error). A truncated or foreign
/// archive, or parameters whose names or shapes differ from the model's, is an Error saying which.
/// Tensors are mapped to `device` (the model's device; CPU when null).
Result<Unit> loadCheckpointWeights(torch::nn::Module& model, torch::optim::Optimizer* optimizer,
                                   const std::string& path, const c10::Device* device = nullptr);

/// The git revision compiled in ("unknown" outside a git checkout).
std::string buildGitRevision();

}  // namespace saccade
