#pragma once
// A long-range task where length matters, for comparing attention variants by what they can
// learn: associative recall. Every token carries a key (one of 16) and a value (a digit); token 0
// asks for a key, exactly one other token, anywhere in the sequence, holds that key, and the
// answer is its value, read from token 0's final state. Nothing but attention can carry the value
// to token 0 (no positions, no recurrence, no pooling), and it must single out one token among
// n - 1 whose keys all differ from the one asked for. A small pre-norm Transformer encoder is
// trained under one variant for a set time (or a set number of steps), on lengths drawn batch by
// batch, log-uniformly from 16 to the training length, then tested at several lengths, longer than it was
// trained on included. A window, block or k larger than a length is capped at it.
// Engine header: includes LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention_variants.h"
#include "common/progress.h"
#include "common/result.h"

namespace saccade {

struct LengthTaskOptions {
    AttentionVariant variant = AttentionVariant::Full;
    VariantOptions options;  ///< window, block, summary, k, features at every length
    std::int64_t trainLength = 512, batch = 32;
    std::int64_t dim = 32, heads = 2, layers = 2, ff = 64;
    double seconds = 60;          ///< training time; 0: until `steps`
    std::int64_t steps = 0;       ///< a step cap (0: none); with seconds = 0 the run is reproducible
    double learningRate = 3e-3;
    std::uint64_t seed = 1;       ///< weights, training data and test data
    std::vector<std::int64_t> testLengths{512, 1024, 2048, 4096};
    std::int64_t testCount = 256;  ///< test sequences per length (the same ones for every variant)
};

struct LengthTaskPoint {
    std::int64_t n = 0;
    double accuracy = 0;       ///< fraction of test sequences answered right (chance: 0.1)
    double low = 0, high = 0;  ///< 95% Wilson interval
};

struct LengthTaskResult {
    AttentionVariant variant = AttentionVariant::Full;
    std::int64_t steps = 0;
    double trainSeconds = 0;
    double finalLoss = 0;           ///< mean cross-entropy over the last 50 steps
    std::vector<LengthTaskPoint> test;
};

/// One line on what does not fit (a length under 2, the variant's options at a length, a zero
/// batch or time); empty when fine.
std::string checkLengthTask(const LengthTaskOptions& options);

/// Trains and tests; `progress` sees the training time (or steps) and then each test length, and
/// may cancel (an Error). Runs on the CPU.
Result<LengthTaskResult> runLengthTask(const LengthTaskOptions& options, const Progress& progress = {});

/// {"schema": "saccade.length-task", "train_length", "seconds", ..., "variants": {name: {"steps",
/// "train_seconds", "final_loss", "test": [{"n", "accuracy", "low", "high"}]}}}.
std::string lengthTaskToJson(const LengthTaskOptions& options, const std::vector<LengthTaskResult>& results,
                             int indent = 2);

}  // namespace saccade
