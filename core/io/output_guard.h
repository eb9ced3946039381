#pragma once
// Outputs that would destroy inputs: every file a command will write (a checkpoint and its
// companions, a JSON result, an image) is compared with every file it reads (a model and its
// sidecar and metrics, an image, a resume checkpoint) and with the others it writes, before any
// work. Paths are compared by where they really lead (symbolic links and "..", hard links).

#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/result.h"

namespace saccade {

/// A path and what gave it ("--out", "the sidecar of --model"), for the message.
struct NamedPath {
    std::string path;
    std::string role;
};

/// The files a checkpoint output named by `role` writes: itself and its companions. A name that
/// does not end in .pt, or whose stem ends in .metrics, is refused: its sidecar or metrics would
/// be another checkpoint's (X.json is X.pt's sidecar, Y.metrics.pt's sidecar is Y.pt's metrics).
Result<std::vector<NamedPath>> checkpointOutputs(const std::string& path, const std::string& role);

/// What a file read under `role` brings along: itself and, for any file, its sidecar and metrics
/// when they exist (a model's .json sidecar is read, and its metrics belong to it).
std::vector<NamedPath> inputWithCompanions(const std::string& path, const std::string& role);

/// True when `a` and `b` lead to the same file (existing or to be created).
bool samePlace(const std::string& a, const std::string& b);

/// Refuses, naming both, an output that leads to an input or to another output.
Result<Unit> checkOutputsApart(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace saccade
