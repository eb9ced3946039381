#pragma once
// The model-randomisation sanity check (Adebayo et al. 2018; analysis/sanity_check.h) for the maps
// of a sequence model (analysis/seq_attribution.h): its layers are randomised one after another
// from the output layer down to the source embedding table (SeqGradientForward::parameterGroups,
// cascading), each sentence's map made again after every step, the decoder teacher-forced along
// the same reference each time.
//
// The source embedding table is randomised too, last: a token's one-hot code is the input and the
// table is the first layer, so the end of the cascade is a model with nothing learnt, as for
// images. Each step embeds the source again (prepare()), so gradient-x-input, integrated gradients
// and occlusion read the randomised rows and the randomised <unk> row alike.
//
// Figures, per map and step: the mean Spearman (and Pearson) correlation, over the target rows of
// every sentence (each row a map over the source tokens), between the trained and the randomised
// model's row. A row the trained model leaves flat is not counted; a randomised row that is flat
// counts 0. SanityCurve::images counts the sentences with at least one counted row. Weights are
// restored bit for bit when the check ends, on success, error or exception alike. Not thread-safe:
// one caller of the model at a time. Plain types.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution/sanity_check.h"
#include "analysis/attribution/seq_attribution.h"
#include "common/progress.h"
#include "common/result.h"

namespace saccade {

struct SeqSample;  // data/seq_task.h

/// Runs the cascade once for every method (checkSeqMethod must hold for each) on `sentences`, each
/// map made with `attribution` (its method replaced by each of `methods`) over the sentence's
/// reference target; the randomised weights drawn from `seed`. Errors: a model without parameter
/// groups ("the model offers no parameter groups ..."), a map's error, cancel (progress after each
/// step returns false).
Result<std::vector<SanityCurve>> seqSanityCheck(
    SeqGradientForward& f, const std::vector<SeqSample>& sentences,
    const std::vector<std::string>& methods, const SeqAttributionOptions& attribution,
    std::uint64_t seed, double threshold = kSanityThreshold, const Progress& progress = {});

}  // namespace saccade
