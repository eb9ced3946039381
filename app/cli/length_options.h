#pragma once
// Options shared by the commands on attention at length (bench attention, length ...): the
// variants' settings and the list of variants.

#include <vector>

#include <CLI/CLI.hpp>

#include "attention/attention_variants.h"
#include "common/result.h"

namespace saccade::cli {

/// --window, --block, --summary, --k, --features, --feature-seed and --tile into `options`.
void addVariantOptions(CLI::App* cmd, VariantOptions& options);

/// "all" or comma-separated variant names ("memory-efficient" and "memory_efficient" both read).
Result<std::vector<AttentionVariant>> parseVariantList(const std::string& text);

}  // namespace saccade::cli
