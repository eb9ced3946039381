#pragma once
// A file of sentence pairs for evaluating a model that reads text (eval --pairs): one pair per
// line, SOURCE<TAB>TARGET, optionally a third field with the gold alignment as links
// "S-T" (sure) and "S?T" (possible only), S a source and T a target token position from 0
// (Pharaoh's order). Blank lines and lines starting with '#' are skipped. Parsed strictly: every
// error names the file and line. Plain types.

#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "data/seq_task.h"

namespace saccade {

struct SeqPairLine {
    int line = 0;  ///< 1-based, for messages
    std::string source, target;
    bool hasAlignment = false;
    std::vector<std::pair<int, int>> sure, possible;  ///< (source, target); possible holds the sure links too
};

/// Reads `path` (at most 64 MiB, at least one pair). `sourcesOnly`: a file of sentences, where a
/// line may also be a SOURCE alone (its target then empty), as `atlas --dataset` reads.
Result<std::vector<SeqPairLine>> readSeqPairs(const std::string& path, bool sourcesOnly = false);
/// Parses the text of a pairs file; `name` is used in messages.
Result<std::vector<SeqPairLine>> parseSeqPairs(const std::string& text, const std::string& name, bool sourcesOnly = false);

/// Samples `first`..`first + count - 1` of `task`'s `split` under `seed` as a pairs file, with
/// their gold alignments and a comment line saying what they are (read back by readSeqPairs).
std::string seqPairsText(const SeqTask& task, Split split, std::int64_t first, std::int64_t count, std::uint64_t seed);

}  // namespace saccade
