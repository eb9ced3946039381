#include "models/batched_eval.h"

#include <algorithm>
#include <chrono>

#include <torch/torch.h>

#include "models/model_input.h"

namespace saccade {

Result<CaptionEvalOpening> openCaptionEvaluation(const Dataset& dataset, Split split, int imageSize, int channels,
                                                 std::size_t rules, std::int64_t limit, std::int64_t batch,
                                                 const Shard& shard) {
    const auto& info = dataset.info();
    if (auto fits = checkDatasetFits(info, imageSize, channels); !fits) return Error{fits.error()};
    if (dataset.size(split) == 0 || dataset.sample(split, 0).captionWords.empty())
        return Error{"dataset " + info.name + " has no captions: a captioner is evaluated on scenes64 or scenes96"};
    const auto total = limit > 0 ? std::min(limit, dataset.size(split)) : dataset.size(split);
    const auto range = batchedShardRange(shard, total, batch);
    if (!range) return Error{range.error()};
    CaptionEvalOpening o;
    o.total = total;
    o.range = *range;
    o.report.outputKind = OutputKind::Caption;
    o.report.predictions.resize(rules);
    o.report.correct.resize(rules);
    o.start = std::chrono::steady_clock::now();
    return o;
}

Result<EvalReport> evaluateInBatches(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                     std::int64_t limit, std::int64_t batchSize, const torch::Device& device,
                                     TrainingMode trainedMode, const PredictBatch& predict,
                                     const Progress& progress, const Shard& shard) {
    const auto total = limit > 0 ? std::min(limit, dataset.size(split)) : dataset.size(split);
    const auto sharded = batchedShardRange(shard, total, batchSize);
    if (!sharded) return Error{sharded.error()};
    const auto range = *sharded;
    const std::int64_t n = range.size();
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::int64_t> correct(rules.size(), 0);
    EvalReport report;
    report.predictions.resize(rules.size());
    try {
        torch::NoGradGuard noGrad;
        for (std::int64_t first = range.begin; first < range.end; first += batchSize) {
            std::vector<std::int64_t> idx;
            for (std::int64_t i = first; i < std::min(range.end, first + batchSize); ++i) idx.push_back(i);
            const auto batch = makeBatch(dataset, split, idx, device);
            appendInts(report.labels, batch.labels);
            auto predicted = predict(batch, idx);
            if (!predicted) return Error{predicted.error()};
            const auto labels = batch.labels.to(torch::kCPU);
            for (std::size_t r = 0; r < rules.size(); ++r) {
                const auto p = (*predicted)[r].to(torch::kCPU, torch::kInt64);
                correct[r] += (p == labels).sum().item<std::int64_t>();
                appendInts(report.predictions[r], p);
            }
            if (progress && !progress(double(first - range.begin + std::int64_t(idx.size())) / double(n)))
                return Error{"evaluation cancelled"};
        }
    } catch (const c10::Error& e) {
        return Error{std::string("evaluation failed: ") + firstLine(e.what_without_backtrace())};
    }
    report.dataset = dataset.info().name;
    report.split = splitName(split);
    report.shard = shard;
    report.begin = range.begin;
    report.total = total;
    report.trainedMode = trainedMode;
    for (std::size_t r = 0; r < rules.size(); ++r) report.rules.push_back(wilsonAccuracy(rules[r], correct[r], n));
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

TraceOutput classOutput(const torch::Tensor& logits, const std::vector<std::string>& classNames) {
    TraceOutput o;
    o.probs = toFloatVector(torch::softmax(logits.to(torch::kFloat32), -1));
    o.label = int(std::max_element(o.probs.begin(), o.probs.end()) - o.probs.begin());
    if (o.label < int(classNames.size())) o.text = classNames[size_t(o.label)];
    return o;
}

}  // namespace saccade
