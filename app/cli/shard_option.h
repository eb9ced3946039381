#pragma once
// --shard i/N on the commands that evaluate many items, and `saccade-cli merge`.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/result.h"
#include "common/shard.h"

namespace saccade::cli {

/// Adds --shard i/N to `cmd`, read into `text`.
void addShardOption(CLI::App* cmd, std::string& text);

/// The shard of `text` ("" is the whole run).
Result<Shard> shardOf(const std::string& text);

/// The fingerprint of a run that every shard shares: the model file's CRC-32 and `parts`.
Result<std::string> runFingerprint(const std::string& modelPath, const std::vector<std::string>& parts);

/// saccade-cli merge SHARD.json... [--out FILE]
void addMergeCommand(CLI::App& app, int& exitCode);

}  // namespace saccade::cli
