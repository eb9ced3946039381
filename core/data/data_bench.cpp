#include "data/data_bench.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/timing.h"
#include "data/batch.h"

namespace saccade {

Result<DataBenchResult> benchDataGeneration(const DataBenchOptions& o) {
    if (o.batch < 1 || o.repeats < 1) return Error{"batch and repeats must be positive"};
    auto dataset = openDataset(o.dataset, o.data);
    if (!dataset) return Error{dataset.error()};
    const auto& info = (*dataset)->info();

    DataBenchResult r;
    r.dataset = o.dataset;
    r.batch = o.batch;
    r.repeats = o.repeats;
    r.threads = at::get_num_threads();
    std::int64_t next = 0;
    Batch batch;
    r.generateMs = medianMs(o.repeats, [&] {
        std::vector<std::int64_t> indices(static_cast<std::size_t>(o.batch));
        for (auto& i : indices) i = next++ % info.trainSize;
        batch = makeBatch(**dataset, Split::Train, indices, torch::kCPU);
    });

    torch::manual_seed(0);
    torch::nn::Sequential net(
        torch::nn::Conv2d(torch::nn::Conv2dOptions(info.channels, 16, 5).stride(2)),
        torch::nn::ReLU(),
        torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 5).stride(2)),
        torch::nn::ReLU(),
        torch::nn::AdaptiveAvgPool2d(4),
        torch::nn::Flatten(),
        torch::nn::Linear(32 * 16, 10));
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
    const auto labels = batch.labels.clamp(0, 9);
    r.trainStepMs = medianMs(o.repeats, [&] {
        adam.zero_grad();
        const auto loss = torch::nn::functional::cross_entropy(net->forward(batch.images), labels);
        loss.backward();
        adam.step();
    });
    r.trainModel = "conv 5x5/2 x16, conv 5x5/2 x32, avg-pool 4x4, linear 512->10; Adam";
    r.samplesPerSecond = o.batch / (r.generateMs / 1000.0);
    r.trainSamplesPerSecond = o.batch / (r.trainStepMs / 1000.0);
    r.ratio = r.samplesPerSecond / r.trainSamplesPerSecond;
    return r;
}

std::string dataBenchToJson(const DataBenchResult& r, int indent) {
    nlohmann::json j = {{"dataset", r.dataset},
                        {"batch", r.batch},
                        {"repeats", r.repeats},
                        {"threads", r.threads},
                        {"generate_ms_median", r.generateMs},
                        {"train_step_ms_median", r.trainStepMs},
                        {"generated_samples_per_s", r.samplesPerSecond},
                        {"trained_samples_per_s", r.trainSamplesPerSecond},
                        {"ratio", r.ratio},
                        {"train_model", r.trainModel}};
    return j.dump(indent);
}

}  // namespace saccade
