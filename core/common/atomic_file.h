#pragma once
// Atomic saves: write to a temporary file beside the target, flush, then rename over it, so a
// crash or a full disk never leaves a half-written file under the target's name.

#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace saccade {

/// Where a save to `path` really goes: a symbolic link is followed to its target (the link
/// stays a link); a folder, device, FIFO or socket is refused, as is a folder that does not exist
/// or cannot be written. The message names the path and says which.
Result<std::string> resolveSaveTarget(const std::string& path);

/// Writes `bytes` to `path` atomically (through resolveSaveTarget). An existing file keeps its
/// permissions. Errors name the path and the system's reason; on error nothing under the
/// target's name has changed.
Result<Unit> writeFileAtomic(const std::string& path, const std::string& bytes);

/// Writes several files that belong together (a checkpoint and its sidecar): every one is written
/// and flushed first, then they are renamed over their targets one right after another. A crash
/// before the renames leaves the old files; only one in the microseconds between two renames can
/// mix old and new (a checkpoint's CRC-32 in its sidecar then says so on load).
Result<Unit> writeFilesAtomic(const std::vector<std::pair<std::string, std::string>>& files);

/// Reads a whole regular file, refusing folders, devices, FIFOs and files larger than `maxBytes`.
Result<std::string> readFile(const std::string& path, std::size_t maxBytes = 256u << 20);

}  // namespace saccade
