#pragma once
// A sequence model's translation as JSON (schema "saccade.seq-trace", version 1): the input, its
// tokens and unknown tokens, the output, and per decoder step the distribution over the source
// (the alignment matrix: rows sum to 1), the chosen source token, entropy, local-p's centre and
// the likeliest words; and the task's reference with its gold alignment when the input has one.
// Also the alignment as CSV. Plain types.

#include <string>

#include "trace/seq_translation.h"

namespace saccade {

constexpr int kSeqTraceVersion = 1;

std::string seqTranslationToJson(const SeqTranslation& translation, const std::string& modelPath, const std::string& task);

/// One header row (the source tokens) and one row per decoder step: the step's token, then its
/// weights. Tokens are quoted as CSV needs.
std::string seqAlignmentToCsv(const SeqTranslation& translation);

}  // namespace saccade
