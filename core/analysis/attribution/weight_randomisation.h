#pragma once
// The pieces of the model-randomisation sanity check (Adebayo et al. 2018) that do not depend on
// what the model reads: a parameter group redrawn at random, the trained weights restored however
// the check ends, and the correlations of a randomised map with the trained one. Images
// (analysis/sanity_check.h) and sentences (analysis/seq_sanity_check.h) both use them.
// Engine header: includes LibTorch.

#include <functional>
#include <utility>
#include <vector>

#include "analysis/attribution/sanity_check.h"
#include "common/rng.h"
#include "models/gradient_forward.h"

namespace saccade {

/// Copies every tensor of `groups` on construction and writes the copies back (bit for bit) on
/// destruction, then calls `changed` (the model drops what it cached from its weights). Holds the
/// model's own tensors: the model must outlive it. Not thread-safe.
class WeightRestorer {
public:
    WeightRestorer(const std::vector<ParameterGroup>& groups, std::function<void()> changed);
    ~WeightRestorer();
    WeightRestorer(const WeightRestorer&) = delete;
    WeightRestorer& operator=(const WeightRestorer&) = delete;

private:
    std::function<void()> m_changed;
    std::vector<std::pair<torch::Tensor, torch::Tensor>> m_saved;
};

/// Writes each tensor of `group` with draws from N(its mean, its std^2) (a constant tensor: std
/// |mean|, or 1 where it is 0), drawn from `rng` on the CPU so that a seed gives the same weights
/// on every device.
void randomiseGroup(const ParameterGroup& group, Rng& rng);

/// Whether every value of `v` is the same (a map with no ranks).
bool flatMap(const std::vector<double>& v);

/// Sums of correlations against trained maps, for one method at one cascade step.
struct SanitySums {
    double spearman = 0, pearson = 0;
    std::int64_t counted = 0;
    /// Adds one map pair; a flat trained map is not counted, a flat randomised one counts 0.
    void add(const std::vector<double>& trained, const std::vector<double>& now);
    /// The means as the step named `layer` (0 when nothing was counted).
    SanityStep step(const std::string& layer) const;
};

/// Sets finalSpearman, finalPearson and flagged from the last step when `curve.images` > 0.
void finishSanityCurve(SanityCurve& curve, double threshold);

/// The cascade both checks run: each group of `groups` in order randomised on top of the ones
/// before (from `seed`), `changed()`, then `step(group name)`, which recomputes the maps and adds
/// their step to the curves; every trained weight restored however it ends. Errors: a step's
/// ("after randomising NAME, ..."), "the sanity check was cancelled" when `progress` says so,
/// and a LibTorch error as "the sanity check failed: " and its first line.
Result<Unit> randomisationCascade(const std::vector<ParameterGroup>& groups, const std::function<void()>& changed,
                                  std::uint64_t seed, const std::function<Result<Unit>(const std::string&)>& step,
                                  const Progress& progress);

}  // namespace saccade
