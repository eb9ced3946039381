#pragma once
// Evaluating any model that reads text (models/translator.h) on a file of pairs (data/seq_pairs.h):
// exact match, token accuracy, attention entropy, exact match by source length and, where the
// file gives gold alignments, the alignment error rate of the attention (the decoder fed the
// reference where the model can be, else its own output on the sentences it got right). Plain
// types.

#include <string>
#include <vector>

#include "data/seq_pairs.h"
#include "models/translator.h"

namespace saccade {

/// `name` is what the report's `split` says (the file's path). A link outside its sentence, or
/// a model error, is an Error naming the line.
Result<SeqEvalReport> evaluatePairs(const Translator& model, const std::vector<SeqPairLine>& pairs, const std::string& name,
                                    const SeqEvalOptions& options, const SeqEvalProgress& onProgress = {});

}  // namespace saccade
