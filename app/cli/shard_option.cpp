#include "shard_option.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/shards/shard_merge.h"
#include "commands.h"
#include "common/atomic_file.h"
#include "io/checkpoint.h"
#include "io/shard_json.h"

namespace saccade::cli {

void addShardOption(CLI::App* cmd, std::string& text) {
    cmd->add_option("--shard", text,
                    "i/N: only the i-th of N slices of the items (0-based), printed as JSON for "
                    "'saccade-cli merge' (e.g. a SLURM array: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
}

Result<Shard> shardOf(const std::string& text) {
    if (text.empty()) return Shard{};
    return parseShard(text);
}

Result<std::string> runFingerprint(const std::string& modelPath, const std::vector<std::string>& parts) {
    auto crc = fileCrc32(modelPath);
    if (!crc) return Error{crc.error()};
    std::vector<std::string> all{*crc};
    all.insert(all.end(), parts.begin(), parts.end());
    return shardFingerprint(all);
}

void addMergeCommand(CLI::App& app, int& exitCode) {
    struct Args {
        std::vector<std::string> files;
        std::string out;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "merge", "Combine the JSON of a sharded run's shards (eval, compare --dataset, sweep, faithfulness, adequacy "
                 "with --shard i/N) into what one unsharded run prints.");
    cmd->add_option("shards", a->files, "the shards' JSON files, in any order")->required()->check(CLI::ExistingFile);
    cmd->add_option("--out", a->out, "write the merged JSON here (atomic) instead of printing it");
    cmd->footer("Example:\n  for i in 0 1 2 3; do saccade-cli eval --model M --shard $i/4 > part$i.json; done\n"
                "  saccade-cli merge part*.json --out eval.json");
    cmd->callback([a, &exitCode] {
        constexpr std::uintmax_t kMaxBytes = std::uintmax_t(1) << 30;
        std::vector<std::string> documents;
        for (const auto& file : a->files) {
            std::error_code ec;
            const auto size = std::filesystem::file_size(file, ec);
            if (ec || size > kMaxBytes) {
                exitCode = badInput("merge", "'" + file + "' " + (ec ? "cannot be read" : "is over 1 GiB: not a shard"));
                return;
            }
            std::ifstream in(file, std::ios::binary);
            std::ostringstream text;
            text << in.rdbuf();
            if (!in && !in.eof()) { exitCode = badInput("merge", "cannot read '" + file + "'"); return; }
            documents.push_back(text.str());
        }
        auto merged = mergeShardDocuments(documents, a->files);
        if (!merged) { exitCode = badInput("merge", merged.error()); return; }
        if (a->out.empty()) {
            std::cout << *merged << "\n";
            return;
        }
        if (auto saved = writeFileAtomic(a->out, *merged + "\n"); !saved) {
            exitCode = badInput("merge", saved.error());
            return;
        }
        std::cout << "wrote " << a->out << " from " << a->files.size() << " shards\n";
    });
}

}  // namespace saccade::cli
