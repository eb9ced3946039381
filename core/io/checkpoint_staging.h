#pragma once
// A training run that may be thrown away writes its checkpoint (weights, sidecar, metrics) to a
// staged path beside the chosen one; keeping it moves every file over the chosen path's, and
// discarding it removes them, so a discarded run never replaces the model saved there before.

#include <string>

#include "common/result.h"

namespace saccade {

/// Beside `out`, hidden and ending in .pt: "DIR/.NAME.unsaved.pt".
std::string stagedCheckpointPath(const std::string& out);
/// Moves the staged checkpoint and its companions over `out` and its companions (each a rename
/// that replaces); a companion of `out` the staged run did not write is removed, so no metrics of
/// an older run stay beside the new weights. Errors name the file.
Result<Unit> promoteCheckpoint(const std::string& staged, const std::string& out);
/// Removes the staged checkpoint and its companions (those that exist).
void discardCheckpoint(const std::string& staged);

}  // namespace saccade
