#pragma once
// Integrity of a zip archive held in memory (LibTorch checkpoints and TorchScript files are zip
// archives): every entry's CRC-32 is recomputed and compared with the central directory, so a
// flipped byte inside a weight tensor is found before the weights are used.

#include <string>

#include "common/atomic_file.h"
#include "common/result.h"

namespace saccade {

/// Checks the end-of-central-directory record (zip64 too), every central and local header, that
/// every entry's data lies inside the file, and the CRC-32 of every stored or deflated entry.
/// Errors name `what` and the first problem found (truncated, not a zip archive, entry X damaged).
Result<Unit> verifyZipArchive(const std::string& bytes, const std::string& what);

}  // namespace saccade
