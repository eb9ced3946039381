#include "models/patch/patch_bench.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "attention/reinforce.h"
#include "common/device.h"
#include "common/timing.h"
#include "models/patch/patch_classifier.h"
#include "models/patch/patch_model.h"
#include "common/torch_errors.h"

namespace saccade {

Result<PatchBenchResult> benchPatch(const PatchBenchOptions& o) {
    if (o.batch < 1 || o.repeats < 1) return Error{"batch and repeats must be positive"};
    auto model = PatchModel::load(o.model, o.device);
    if (!model) return Error{model.error()};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    const auto config = (*model)->config();
    PatchBenchResult r;
    r.batch = o.batch;
    r.repeats = o.repeats;
    r.threads = at::get_num_threads();
    r.device = device->str();
    auto sync = [&] {
        if (device->is_cuda()) torch::cuda::synchronize();
    };
    try {
        for (const char* variant : {"dense", "select"}) {
            PatchConfig vc = config;
            vc.variant = variant;
            torch::manual_seed(0);
            PatchClassifier net(vc);
            net->to(*device);
            torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
            const auto x = torch::rand({o.batch, vc.inChannels, vc.imageSize, vc.imageSize}).to(*device);
            const auto y = torch::randint(vc.classes, {o.batch}).to(*device);
            const auto one = x.narrow(0, 0, 1);
            Rng rng(1);
            PatchVariantTiming v;
            v.variant = variant;
            v.softStepMs = medianMs(o.repeats, [&] {
                const auto out = net->forward(x, *parseSelectionRule("soft"), rng);
                adam.zero_grad();
                torch::nn::functional::cross_entropy(out.logits, y).backward();
                adam.step();
                sync();
            });
            v.hardStepMs = medianMs(o.repeats, [&] {
                const auto out = net->forward(x, *parseSelectionRule("sample"), rng);
                const auto logpY = torch::log_softmax(out.logits, -1).gather(1, y.unsqueeze(1)).squeeze(1);
                const auto loss = -logpY.mean() +
                                  reinforceLoss(out.logProb.sum(0), logpY.detach(), torch::zeros({}));
                adam.zero_grad();
                loss.backward();
                adam.step();
                sync();
            });
            torch::NoGradGuard noGrad;
            v.forwardArgmaxMs = medianMs(o.repeats * 3, [&] {
                net->forward(one, *parseSelectionRule("argmax"), rng);
                sync();
            });
            v.forwardSoftMs = medianMs(o.repeats * 3, [&] {
                net->forward(one, *parseSelectionRule("soft"), rng);
                sync();
            });
            v.softImagesPerSecond = o.batch / (v.softStepMs / 1000);
            v.hardImagesPerSecond = o.batch / (v.hardStepMs / 1000);
            r.variants.push_back(v);
        }
    } catch (const c10::Error& e) {
        return Error{std::string("benchmark failed: ") + torchErrorLine(e)};
    }
    const Image image = Image::zeros(config.imageSize, config.imageSize, config.inChannels);
    std::uint64_t seed = 0;
    r.traceArgmaxMs = medianMs(o.repeats, [&] { (*model)->trace(image, "argmax", ++seed, "bench"); });
    r.traceSampleMs = medianMs(o.repeats, [&] { (*model)->trace(image, "sample", ++seed, "bench"); });
    return r;
}

std::string patchBenchToJson(const PatchBenchResult& r, int indent) {
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& v : r.variants)
        variants.push_back({{"variant", v.variant}, {"soft_step_ms", v.softStepMs},
                            {"hard_step_ms", v.hardStepMs},
                            {"soft_train_images_per_s", v.softImagesPerSecond},
                            {"hard_train_images_per_s", v.hardImagesPerSecond},
                            {"forward_argmax_ms", v.forwardArgmaxMs}, {"forward_soft_ms", v.forwardSoftMs}});
    return nlohmann::json{{"batch", r.batch}, {"repeats", r.repeats}, {"threads", r.threads},
                          {"device", r.device}, {"variants", variants},
                          {"trace_argmax_ms", r.traceArgmaxMs}, {"trace_sample_ms", r.traceSampleMs}}
        .dump(indent);
}

}  // namespace saccade
