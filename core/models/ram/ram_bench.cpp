#include "models/ram/ram_bench.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/timing.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "models/ram/ram_network.h"
#include "io/checkpoint.h"
#include "common/torch_errors.h"

namespace saccade {

namespace {

// Multiply-adds of one glimpse step for one episode, counted from the layer shapes.
double macsPerGlimpse(const RamConfig& c) {
    const double features = double(c.scales) * c.inChannels * c.glimpseSize * c.glimpseSize;
    return features * c.glimpseHidden + 2.0 * c.glimpseHidden + 2.0 * c.glimpseHidden * c.glimpseDim +
           double(c.glimpseDim) * c.hidden + double(c.hidden) * c.hidden + 3.0 * c.hidden;
}

// The multiply-adds that actually run for `episodes` episodes of one image: the glimpse layers
// on `glimpseRows` rows, the shared first step on one row, W h on one row at step 1 (every
// episode has the same h) and on all rows after, the other layers on every row.
double macsComputed(const RamConfig& c, std::int64_t glimpseRows, std::int64_t episodes) {
    const double features = double(c.scales) * c.inChannels * c.glimpseSize * c.glimpseSize;
    const double glimpse = features * c.glimpseHidden + double(c.glimpseHidden) * c.glimpseDim;
    const double perRow = 2.0 * c.glimpseHidden + double(c.glimpseHidden) * c.glimpseDim +
                          double(c.glimpseDim) * c.hidden + 3.0 * c.hidden;
    const double recurrent = double(c.hidden) * c.hidden;
    const double rows = 1.0 + double(c.glimpses - 1) * episodes;
    const double recurrentRows = c.glimpses > 1 ? 1.0 + double(c.glimpses - 2) * episodes : 0.0;
    return double(glimpseRows) * glimpse + rows * perRow + recurrentRows * recurrent;
}

// Random canvases with a 28x28 block of noise at a random place, as the reference makes them.
torch::Tensor canvases(int n, int size, const torch::Device& device) {
    auto x = torch::zeros({n, 1, size, size});
    for (int i = 0; i < n; ++i) {
        const auto r = torch::randint(0, size - 27, {2});
        const auto y0 = r[0].item<std::int64_t>(), x0 = r[1].item<std::int64_t>();
        x[i][0].narrow(0, y0, 28).narrow(1, x0, 28).copy_(torch::rand({28, 28}));
    }
    return x.to(device);
}

}  // namespace

Result<RamBenchResult> benchRam(const RamBenchOptions& o) {
    if (o.canvas < 28 || o.episodes < 1 || o.batch < 1 || o.repeats < 1)
        return Error{"bench ram: canvas >= 28, and episodes, batch and repeats >= 1"};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    RamConfig c;
    c.imageSize = o.canvas;
    c.glimpses = o.glimpses;
    c.glimpseSize = o.glimpseSize;
    c.scales = o.scales;
    c.scaleFactor = o.factor;
    c.hidden = o.hidden;
    c.glimpseDim = o.hidden;
    c.locationStd = 0.1;
    if (auto valid = validateRamConfig(c); !valid) return Error{valid.error()};
    try {
        torch::manual_seed(0);
        RamNetwork net(c);
        net->to(*device);
        RamBenchResult r;
        r.threads = torch::get_num_threads();
        r.device = device->str();
        auto sync = [&] {
            if (device->is_cuda()) torch::cuda::synchronize();
        };
        {
            torch::NoGradGuard noGrad;
            net->eval();
            const auto one = canvases(1, o.canvas, *device);
            Rng rng(1);
            std::int64_t glimpseRows = 0;
            r.episodesMs = medianMs(o.repeats, [&] {
                glimpseRows = net->forward(one, RamRule::Sample, rng, false, o.episodes).glimpsesComputed;
                sync();
            });
            r.episodesGflop = 2 * macsPerGlimpse(c) * c.glimpses * double(o.episodes) / 1e9;
            r.episodesGflopComputed = 2 * macsComputed(c, glimpseRows, o.episodes) / 1e9;
            r.glimpsesComputed = glimpseRows;
        }
        if (!o.model.empty()) {
            auto info = readCheckpointInfo(o.model);
            if (!info) return Error{info.error()};
            auto config = ramConfigFromJson(info->configJson);
            if (!config || info->modelType != "ram") return Error{"bench ram: '" + o.model + "' is not a RAM checkpoint"};
            RamNetwork trained(*config);
            trained->to(*device);
            if (auto loaded = loadCheckpointWeights(*trained, nullptr, o.model, &*device); !loaded)
                return Error{loaded.error()};
            auto dataset = openDataset(info->dataset);
            if (!dataset) return Error{dataset.error()};
            torch::NoGradGuard noGrad;
            trained->eval();
            const auto image = makeBatch(**dataset, Split::Test, {0}, *device).images;
            Rng rng(1);
            std::int64_t rows = 0;
            r.modelEpisodesMs = medianMs(o.repeats, [&] {
                rows = trained->forward(image, RamRule::Sample, rng, false, o.episodes).glimpsesComputed;
                sync();
            });
            r.modelGlimpsesComputed = rows;
            r.modelGflopComputed = 2 * macsComputed(*config, rows, o.episodes) / 1e9;
        }
        net->train();
        torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(3e-4));
        const auto x = canvases(o.batch, o.canvas, *device);
        const auto y = torch::randint(0, 10, {o.batch}, torch::TensorOptions().dtype(torch::kLong).device(*device));
        Rng rng(2);
        r.trainStepMs = medianMs(o.repeats, [&] {
            const auto loss = ramHybridLoss(net->forward(x, RamRule::Sample, rng), y).total;
            adam.zero_grad();
            loss.backward();
            adam.step();
            sync();
        });
        r.trainImagesPerSecond = 1000.0 * o.batch / r.trainStepMs;
        return r;
    } catch (const c10::Error& e) {
        return Error{std::string("bench ram failed: ") + torchErrorLine(e)};
    }
}

std::string ramBenchToJson(const RamBenchOptions& o, const RamBenchResult& r, int indent) {
    return nlohmann::json{{"canvas", o.canvas}, {"glimpses", o.glimpses}, {"g", o.glimpseSize},
                          {"k", o.scales}, {"s", o.factor}, {"hidden", o.hidden}, {"batch", o.batch},
                          {"episodes", o.episodes}, {"repeats", o.repeats}, {"threads", r.threads},
                          {"device", r.device}, {"episodes_ms", r.episodesMs},
                          {"episodes_gflop", r.episodesGflop},
                          {"episodes_gflop_computed", r.episodesGflopComputed},
                          {"episodes_glimpses_computed", r.glimpsesComputed},
                          {"episodes_gflops_per_s", r.episodesGflopComputed / (r.episodesMs / 1000.0)},
                          {"train_step_ms", r.trainStepMs}, {"train_images_per_s", r.trainImagesPerSecond},
                          {"model", o.model}, {"model_episodes_ms", r.modelEpisodesMs},
                          {"model_glimpses_computed", r.modelGlimpsesComputed}}
        .dump(indent);
}

}  // namespace saccade
