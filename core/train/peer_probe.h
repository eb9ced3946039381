#pragma once
// Before a rank other than 0 joins a training group, a child process talks to the master
// address first. LibTorch reads the store's replies on threads of its own, where a peer that
// sends garbage (not a Saccade rank 0: another service on the port) ends the process with
// std::length_error or std::bad_alloc, and a peer that accepts and never answers blocks past any
// timeout. The child takes those risks: a crash or silence in it becomes one line here.

#include <string>

#include "common/atomic_file.h"
#include "common/result.h"
#include "train/distributed_settings.h"

namespace saccade {

/// Connects to the group's store as a joining rank does, sets a key and reads it back, in a child
/// process given settings.timeoutSeconds plus a second. A store that
/// answers: Unit. No store there within the timeout, or a store error: that error's line. A
/// crash or no answer: an Error that says the peer is not a Saccade training group.
Result<Unit> probeGroupPeer(const DistributedSettings& settings);

/// True when a c10d or Gloo message says that something timed out ("Socket Timeout", "timed out").
bool saysTimedOut(const std::string& message);

}  // namespace saccade
