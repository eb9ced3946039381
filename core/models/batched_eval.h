#pragma once
// The bookkeeping of a classifier's evaluation, written once: the images of a split up to a limit
// (a shard's slice of them on batch boundaries), batches generated on the device, labels, correct
// counts and predictions per rule, progress with cancel, timing and Wilson intervals. A model
// supplies only its predictions for a batch. Engine header: includes LibTorch.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "data/batch.h"
#include "models/attention_model.h"

namespace saccade {

/// Per rule (in order), the predicted classes of `batch`: [B] integer tensors on any device.
/// `indices` are the batch's image indices in the split (for per-image seeds).
using PredictBatch =
    std::function<Result<std::vector<torch::Tensor>>(const Batch& batch, const std::vector<std::int64_t>& indices)>;

Result<EvalReport> evaluateInBatches(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                     std::int64_t limit, std::int64_t batchSize, const torch::Device& device,
                                     TrainingMode trainedMode, const PredictBatch& predict,
                                     const Progress& progress, const Shard& shard);

/// The output of a classifier's trace from its logits [K]: probabilities, label, class name.
TraceOutput classOutput(const torch::Tensor& logits, const std::vector<std::string>& classNames);

}  // namespace saccade
