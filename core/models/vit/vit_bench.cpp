#include "models/vit/vit_bench.h"

#include <chrono>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/timing.h"
#include "data/image.h"
#include "models/attention_model.h"
#include "models/vit/vit_network.h"

namespace saccade {

Result<VitBenchResult> benchVit(const VitBenchOptions& o) {
    if (o.batch < 1 || o.batch > 65536) return Error{"the batch must be 1..65536"};
    if (o.repeats < 1 || o.repeats > 1000) return Error{"repeats must be 1..1000"};
    auto config = validateVitConfig(o.model);
    if (!config) return Error{config.error()};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    VitBenchResult r;
    r.threads = torch::get_num_threads();
    r.device = device->str();
    try {
        torch::manual_seed(1);
        VitNetwork net(*config);
        net->to(*device);
        torch::optim::AdamW adamw(net->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(0.05));
        const auto images = torch::rand({o.batch, config->inChannels, config->imageSize, config->imageSize},
                                        torch::TensorOptions().device(*device));
        const auto labels = torch::randint(config->classes, {o.batch}, torch::TensorOptions().dtype(torch::kInt64).device(*device));
        auto sync = [&] { if (device->is_cuda()) torch::cuda::synchronize(); };
        net->train();
        r.trainStepMs = medianMs(o.repeats, [&] {
            adamw.zero_grad();
            const auto loss = torch::cross_entropy_loss(net->forward(images).logits, labels);
            loss.backward();
            adamw.step();
            sync();
        });
        r.trainImagesPerSecond = 1000.0 * o.batch / r.trainStepMs;
        net->eval();
        torch::NoGradGuard noGrad;
        const auto one = images.narrow(0, 0, 1);
        r.traceMs = medianMs(o.repeats, [&] {
            net->forward(one, /*keepAttention=*/true);
            sync();
        });
    } catch (const c10::Error& e) {
        return Error{std::string("benchmark failed: ") + firstLine(e.what_without_backtrace())};
    }
    if (!o.openModel.empty()) {
        const auto start = std::chrono::steady_clock::now();
        auto model = loadAttentionModel(o.openModel, o.device);
        if (!model) return Error{model.error()};
        const auto opened = std::chrono::steady_clock::now();
        auto image = Image::zeros((*model)->imageSize(), (*model)->imageSize(), (*model)->channels());
        auto trace = (*model)->trace(image, (*model)->deterministicRule(), 1, "bench");
        if (!trace) return Error{trace.error()};
        const auto traced = std::chrono::steady_clock::now();
        r.openMs = std::chrono::duration<double, std::milli>(opened - start).count();
        r.firstTraceMs = std::chrono::duration<double, std::milli>(traced - opened).count();
    }
    return r;
}

std::string vitBenchToJson(const VitBenchOptions& o, const VitBenchResult& r, int indent) {
    nlohmann::json j{{"device", r.device},
                     {"threads", r.threads},
                     {"sizes", nlohmann::json::parse(vitConfigToJson(o.model))},
                     {"batch", o.batch},
                     {"train", {{"step_ms", r.trainStepMs}, {"images_per_s", r.trainImagesPerSecond}}},
                     {"trace", {{"ms", r.traceMs}}}};
    if (!o.openModel.empty()) j["open"] = {{"model", o.openModel}, {"open_ms", r.openMs}, {"first_trace_ms", r.firstTraceMs}};
    return j.dump(indent);
}

}  // namespace saccade
