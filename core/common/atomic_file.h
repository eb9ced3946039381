#pragma once
// Atomic saves: write to a temporary file beside the target, flush, then rename over it, so a
// crash or a full disk never leaves a half-written file under the target's name.

#include <string>

#include "common/result.h"

namespace saccade {

struct Unit {};

/// Writes `bytes` to `path` atomically. Errors name the path and the system's reason.
Result<Unit> writeFileAtomic(const std::string& path, const std::string& bytes);

/// Reads a whole file, refusing files larger than `maxBytes`.
Result<std::string> readFile(const std::string& path, std::size_t maxBytes = 256u << 20);

}  // namespace saccade
