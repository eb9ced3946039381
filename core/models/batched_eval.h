#pragma once
// The bookkeeping of a classifier's evaluation, written once: the images of a split up to a limit
// (a shard's slice of them on batch boundaries), batches generated on the device, labels, correct
// counts and predictions per rule, progress with cancel, timing and Wilson intervals. A model
// supplies only its predictions for a batch. And the opening a captioner's evaluation shares (the
// bundled and the imported one). Engine header: includes LibTorch.

#include <chrono>
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

/// Where a captioner's evaluation starts: this shard's images of the split (the first `limit`, or
/// all when it is 0 or less, in batches of `batch`), the report begun (caption output, one row
/// per rule) and the clock.
struct CaptionEvalOpening {
    std::int64_t total = 0;  ///< the images of the whole evaluation, every shard's
    ItemRange range;
    EvalReport report;
    std::chrono::steady_clock::time_point start;
};

/// Checks that `dataset` fits a captioner of `imageSize` and `channels` and has captions, then
/// opens its evaluation. Errors: the fit's, "dataset NAME has no captions: ...", the shard's.
Result<CaptionEvalOpening> openCaptionEvaluation(const Dataset& dataset, Split split, int imageSize, int channels,
                                                 std::size_t rules, std::int64_t limit, std::int64_t batch,
                                                 const Shard& shard);

/// The output of a classifier's trace from its logits [K]: probabilities, label, class name.
TraceOutput classOutput(const torch::Tensor& logits, const std::vector<std::string>& classNames);

}  // namespace saccade
