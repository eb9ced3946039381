#include "models/model_input.h"

#include <torch/torch.h>

#include "models/attention_model.h"
#include "data/fitted_dataset.h"
#include "trace/ground_truth.h"

namespace saccade {

Result<torch::Tensor> modelInput(const Image& image, int size, int channels, const torch::Device& device) {
    if (image.width != size || image.height != size || image.channels != channels) {
        return Error{"the model takes " + std::to_string(size) + "x" + std::to_string(size) + " images with " +
                     std::to_string(channels) + " channel(s); got " + std::to_string(image.width) + "x" +
                     std::to_string(image.height) + " with " + std::to_string(image.channels)};
    }
    const auto bytes = torch::from_blob(const_cast<std::uint8_t*>(image.pixels.data()),
                                        {1, image.height, image.width, image.channels}, torch::kUInt8);
    // Contiguous NCHW: a permuted (channels-last) tensor sends convolutions down slower paths.
    return bytes.permute({0, 3, 1, 2}).to(torch::kFloat).div(255.0).contiguous().to(device);
}

Result<Unit> checkDatasetFits(const DatasetInfo& info, int size, int channels) {
    if (info.width != size || info.height != size || info.channels != channels) {
        auto shape = [](int w, int h, int c) {
            return std::to_string(w) + "x" + std::to_string(h) + (c == 1 ? " grey" : c == 3 ? " colour" : "x" + std::to_string(c));
        };
        return Error{"dataset " + info.name + " has " + shape(info.width, info.height, info.channels) +
                     " images; the model takes " + shape(size, size, channels)};
    }
    return Unit{};
}

std::vector<float> toFloatVector(const torch::Tensor& t) {
    const auto c = t.to(torch::kCPU, torch::kFloat).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

Result<FittedImage> fitToModel(const AttentionModel& model, const Image& image, const std::optional<GroundTruth>& truth) {
    return fitToInput(image, model.imageSize(), model.channels(), model.imageFit(), truth);
}

Result<FittedImage> fitToInput(const Image& image, int side, int channels, const ImageFit& fit,
                               const std::optional<GroundTruth>& truth) {
    FittedImage out{withChannels(image, channels), truth};
    if (side <= 0 || (image.width == side && image.height == side)) return out;
    auto fitted = fitImage(out.image, fit);
    if (!fitted) return Error{"a " + std::to_string(image.width) + "x" + std::to_string(image.height) + " image with " +
                              describeFit(fit) + ": " + fitted.error()};
    if (fitted->width != side || fitted->height != side)
        return Error{"the model takes " + std::to_string(side) + "x" + std::to_string(side) + " images, but " + describeFit(fit) +
                     " makes this " + std::to_string(image.width) + "x" + std::to_string(image.height) + " image " +
                     std::to_string(fitted->width) + "x" + std::to_string(fitted->height)};
    out.image = std::move(fitted).value();
    if (truth) out.truth = fittedGroundTruth(*truth, fitGeometry(image.width, image.height, fit));
    return out;
}

DatasetOptions datasetOptionsFor(const AttentionModel& model) {
    DatasetOptions o;
    o.seed = model.info().seed;
    o.classNames = model.classNames();
    o.unlabelled = !traitsOf(model.outputKind()).labelsAreClasses;  // a captioner's "classes" are its words
    if (model.imageSize() > 0) o.fit = model.imageFit();
    return o;
}

Result<std::shared_ptr<const Dataset>> openDatasetFor(const AttentionModel& model, const std::string& name, std::uint64_t seed) {
    auto options = datasetOptionsFor(model);
    options.seed = seed;
    auto dataset = openDataset(name, options);
    if (!dataset || model.imageSize() <= 0) return dataset;  // a model that reads no images takes its data as it is
    return fittedDataset(*dataset, model.imageFit(), model.channels());
}

std::vector<std::string> datasetClassNames(const std::string& dataset) {
    if (auto d = openDataset(dataset); d) return (*d)->info().classNames;
    return {};
}

std::vector<RunRecord> runRecords(const std::vector<std::uint64_t>& seeds, const torch::Tensor& logits,
                                  const torch::Tensor& logProb) {
    const auto probs = torch::softmax(logits, -1).to(torch::kCPU, torch::kFloat).contiguous();
    const auto [confidence, label] = probs.max(1);
    const auto total = logProb.sum(0).to(torch::kCPU, torch::kDouble).contiguous();
    const auto conf = confidence.accessor<float, 1>();
    const auto lab = label.accessor<std::int64_t, 1>();
    const auto lp = total.accessor<double, 1>();
    std::vector<RunRecord> records(seeds.size());
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        auto& r = records[i];
        r.seed = seeds[i];
        r.label = int(lab[std::int64_t(i)]);
        r.confidence = conf[std::int64_t(i)];
        r.logProb = lp[std::int64_t(i)];
        const float* row = probs[std::int64_t(i)].data_ptr<float>();
        r.probs.assign(row, row + probs.size(1));
    }
    return records;
}

void appendInts(std::vector<int>& out, const torch::Tensor& values) {
    const auto v = values.to(torch::kCPU, torch::kInt).contiguous();
    out.insert(out.end(), v.data_ptr<int>(), v.data_ptr<int>() + v.numel());
}

Rng evaluationRng(std::uint64_t seed, std::int64_t first, std::size_t count) {
    return Rng::perRow(runSeeds(evaluationSeed(seed, first), int(count)));
}

}  // namespace saccade
