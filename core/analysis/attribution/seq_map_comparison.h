#pragma once
// Attention beside attribution on a sequence model's test split (issue 37): for each sentence of
// the task's test split, the decoder teacher-forced along the reference, every map named
// (analysis/seq_attribution.h) of every target token, scored on the same ground truth as attention:
// - the alignment error rate (metrics/alignment_error.h) of each map's largest source token per
//   target token against the gold alignment;
// - deletion: the fall of the reference token's probability when that source token is read as
//   <unk>, against a random source token of the sentence (seeded): a map that predicts what the
//   answer needs makes the first fall far more than the second;
// - the model-randomisation sanity check on the first sentences (analysis/seq_sanity_check.h):
//   does the map change once the layers are randomised?
// Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/attribution/sanity_check.h"
#include "analysis/attribution/seq_attribution.h"
#include "common/progress.h"
#include "common/result.h"
#include "models/translator.h"

namespace saccade {

struct SeqMapComparisonOptions {
    std::vector<std::string> methods;  ///< each must pass checkSeqMethod
    std::int64_t limit = 200;          ///< test sentences
    std::uint64_t seed = 1;            ///< the random tokens of the deletion baseline; the sanity check's weights
    std::int64_t sanitySentences = 10; ///< first test sentences (at most limit) for the sanity check; 0: not run
    double sanityThreshold = kSanityThreshold;
    SeqAttributionOptions attribution; ///< rule, steps, quadrature (the method is each of `methods`)
};

struct SeqMapFigures {
    std::string method;
    std::optional<double> aer;              ///< unset when no sentence had a gold link
    double deletionFall = 0;                ///< mean fall of p(reference token), its pointed token removed
    std::optional<double> completenessError;  ///< integrated gradients: mean over sentences
    double seconds = 0;
    std::optional<SanityCurve> sanity;  ///< unset when the check did not run
};

struct SeqMapComparisonReport {
    std::string task, rule, model;
    std::int64_t sentences = 0, tokens = 0, aerSentences = 0;
    double randomFall = 0;  ///< the same fall with a random source token per step
    std::int64_t sanitySentences = 0;  ///< sentences the sanity check ran on (0: not run)
    double sanityThreshold = kSanityThreshold;
    std::uint64_t seed = 1;
    std::vector<SeqMapFigures> maps;  ///< in the order of options.methods, less the omitted ones
    /// The maps asked for that the model cannot give (rollout on a recurrent model), with the reason.
    std::vector<std::pair<std::string, std::string>> omitted;
    double seconds = 0;
};

/// The table. Errors: a model without gradients ("X offers no teacher-forced forward over its source's embeddings ..."),
/// one without a test split, an unsupported method, limit < 1, sanitySentences < 0, a model
/// without parameter groups while sanitySentences > 0, a map's error, cancel.
Result<SeqMapComparisonReport> compareSeqMaps(const Translator& model, const SeqMapComparisonOptions& options,
                                              const Progress& progress = {});

/// JSON (schema "saccade.seq-map-faithfulness", version 1); unmeasured figures are null.
std::string seqMapComparisonToJson(const SeqMapComparisonReport& report, int indent = 2);

}  // namespace saccade
