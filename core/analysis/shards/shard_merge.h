#pragma once
// `saccade-cli merge`: the shards of a sharded run (eval, compare --dataset, sweep, faithfulness
// of a classifier or a captioner, adequacy with --shard i/N) combined into exactly the JSON one
// unsharded run prints, timings aside (the merged "seconds" is the shards' sum). Figures are rebuilt from the counts and
// order-independent sums the shards carry, through the same code the unsharded run uses.

#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

/// `documents` are the shards' JSON texts, in any order; `names` (their files) go into messages.
Result<std::string> mergeShardDocuments(const std::vector<std::string>& documents,
                                        const std::vector<std::string>& names, int indent = 2);

}  // namespace saccade
