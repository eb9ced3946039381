#pragma once
// saccade-cli faithfulness --methods: attention, rollout and the attribution methods beside each
// other on one test split (analysis/map_comparison.h), as a table or JSON.

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "data/dataset.h"
#include "models/attention_model.h"

namespace saccade::cli {

struct MapFaithfulnessArgs {
    std::string methods;            ///< comma-separated map names; empty: attention's own report
    std::int64_t sanityImages = 10;
    int curvePoints = 20;
};

/// Adds --methods, --sanity-images and --curve-points to the faithfulness command.
void addMapFaithfulnessOptions(CLI::App* cmd, MapFaithfulnessArgs& args);

/// Whether the command line named --methods (or an option that only applies with it: then the
/// error says so, one line). `shardOrSaliency`: the command line gave --shard or --saliency-images.
/// Returns 0 to go on with attention's own report, -1 to run the table, or an exit status.
int mapFaithfulnessMode(const CLI::App& cmd, const MapFaithfulnessArgs& args);

/// The table on `dataset`'s test split; exit 0, or 2 with one line.
int runMapFaithfulness(const MapFaithfulnessArgs& args, AttentionModel& model, const Dataset& dataset,
                       std::int64_t limit, std::uint64_t seed, const std::string& rule, bool json);

struct SeqMapFaithfulnessArgs {
    std::string model, device, methods, rule;
    std::int64_t limit = 200;
    std::int64_t sanitySentences = 10;  ///< --sanity-images: sentences for the sanity check (0: not run)
    std::uint64_t seed = 1;
    bool json = false;
};

/// A sequence model's table (analysis/seq_map_comparison.h) on its task's test split; exit 0, or
/// 2 with one line.
int runSeqMapFaithfulness(const SeqMapFaithfulnessArgs& args);

}  // namespace saccade::cli
