#pragma once
// The model-randomisation sanity check (Adebayo et al. 2018, "Sanity checks for saliency maps"):
// the model's layers are randomised one after another from the output layer down (cascading:
// each step keeps the layers above it random), each map is made again after every step, and its
// rank correlation with the map of the trained model says whether the map depends on what the
// model learnt. A map that stays alike once every layer is random does not: it is flagged.
//
// Randomising a tensor replaces it by draws from a normal distribution with the tensor's own mean
// and standard deviation (its scale kept, its learnt structure gone; a constant tensor, such as a
// one-number bias, draws with a standard deviation of its absolute value, or 1 where it is 0),
// from one seeded stream on the CPU (analysis/weight_randomisation.h, shared with the sequence
// models' check, analysis/seq_sanity_check.h). The model's parameter groups come from
// GradientForward::parameterGroups (models/gradient_forward.h). Every weight is copied back when
// the check ends, on success, error or exception alike: the model is bit for bit unchanged.
//
// Figures, per map and step, over the images whose trained map is not flat: the mean Spearman
// rank correlation and the mean Pearson correlation of the cell maps (each normalised to sum 1)
// between the trained and the randomised model's map. A randomised map that is flat has no ranks:
// it counts as 0. Not thread-safe: one caller of the model at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/attribution/image_maps.h"
#include "common/progress.h"
#include "common/result.h"
#include "models/attention_model.h"

namespace saccade {

/// A map whose mean Spearman correlation after every layer is randomised exceeds this is flagged.
inline constexpr double kSanityThreshold = 0.5;

struct SanityStep {
    std::string layer;      ///< the group randomised at this step (the ones before it stay random)
    double spearman = 0;    ///< mean over the counted images
    double pearson = 0;
};

struct SanityCurve {
    std::string method;
    std::vector<SanityStep> steps;          ///< from the output layer down
    std::int64_t images = 0;                ///< images counted (a flat trained map is not)
    std::optional<double> finalSpearman;    ///< after every layer; unset when no image counted
    std::optional<double> finalPearson;
    bool flagged = false;                   ///< finalSpearman > threshold: does not depend on the model
};

/// Runs the cascade once for every method (checkMapMethod must hold for each) on `images`, each
/// attributed to its class in `targets`. Errors: a model without parameter groups ("X offers no
/// parameter groups for the sanity check"), a map's error. Progress after each step; false cancels.
Result<std::vector<SanityCurve>> sanityCheck(AttentionModel& model, const std::vector<Image>& images,
                                             const std::vector<int>& targets, const std::vector<std::string>& methods,
                                             const MapSettings& settings, std::uint64_t seed,
                                             double threshold = kSanityThreshold, const Progress& progress = {});

}  // namespace saccade
