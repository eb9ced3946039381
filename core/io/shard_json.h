#pragma once
// The "shard" object of a sharded command's JSON, and the checks `merge` makes before it combines
// shards: one command, one fingerprint (the same model, data and options), every shard 0..N-1
// exactly once, slices that tile the items without gap or overlap.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "common/shard.h"

namespace saccade {

nlohmann::json shardHeader(const std::string& command, const Shard& shard, std::int64_t begin, std::int64_t end,
                           std::int64_t total, const std::string& fingerprint);

/// A short fingerprint (CRC-32, hex) of what a run's shards must share, from its parts.
std::string shardFingerprint(const std::vector<std::string>& parts);

/// Parses the shard documents (`names` say which file each came from, for messages) and returns
/// them ordered by shard index, after the checks above.
Result<std::vector<nlohmann::json>> orderedShards(const std::vector<std::string>& documents,
                                                  const std::vector<std::string>& names);

}  // namespace saccade
