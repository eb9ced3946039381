#pragma once
// What the optimisation steps of the models that train their attention share (the patch
// classifier, the captioner, the sequence model): the rule a step draws its attention under, the
// mean over the global batch in data-parallel runs, REINFORCE against the moving-average
// baseline, and the end of a step. Each family's step keeps what is its own: its batch, its
// network's pass and the terms of its loss.

#include <cstdint>
#include <optional>

#include <torch/torch.h>

#include "attention/selection.h"
#include "trace/output_kind.h"
#include "train/train_progress.h"
#include "train/trainer_opening.h"

namespace saccade {

/// What a family's step reads besides its options, config, network and data.
struct StepParts {
    torch::optim::Optimizer& optimizer;
    const BatchShard& shard;   ///< this rank's slice of every global batch
    const torch::Device& device;
    std::uint64_t seed;        ///< the run's seed (each rank draws from rankSeed(seed, rank))
    const ReinforceBaseline& baseline;
};

/// The attention rule of one training step, by the training mode: soft takes the expected
/// context; hard samples one location per row, and the rows in `mix` (when defined) take the
/// expectation instead; gumbel is straight-through at temperature `tau`.
struct StepRule {
    SelectionOptions rule;
    torch::Tensor mix;  ///< [rows] bool: the hard rows that take the expectation; undefined: none
    double tau = 0;     ///< gumbel's temperature; 0 otherwise
};

/// Hard rows take the expectation with probability `mixShare` (drawn from `mixSeed`; none: no
/// mix is drawn); gumbel's temperature decays as max(0.5, exp(-gumbelRate * iteration)).
StepRule stepRule(TrainingMode mode, std::int64_t iteration, int rows, const torch::Device& device,
                  std::optional<double> mixShare, std::uint64_t mixSeed, double gumbelRate);

/// The count a rank's sum over `mask` (its words or tokens) is divided by to make a mean over the
/// global batch: each rank divides by its share of all the ranks' count, so the averaged gradient
/// is one process's (alone, the count itself). Detached.
torch::Tensor globalCount(const torch::Tensor& mask, int worldSize);

/// REINFORCE against the baseline: -mean over rows of (reward - baseline) * logProb, where the
/// rows that took the expectation (`mix`, when defined) made no choice and add nothing. `reward`
/// is detached. Sets p.reward (the rows' mean reward) and p.reinforce.
torch::Tensor reinforceTerm(const torch::Tensor& reward, const torch::Tensor& logProb, const torch::Tensor& mix,
                            const ReinforceBaseline& baseline, TrainProgress& p);

/// The end of a step: records the loss in p.loss and, when it is finite, clears the gradients and
/// runs the backward pass. False: a non-finite loss, the weights untouched (the loop then stops).
bool backwardStep(const torch::Tensor& loss, torch::optim::Optimizer& optimizer, TrainProgress& p);

}  // namespace saccade
