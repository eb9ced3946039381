#include "models/script/script_bench.h"

#include <algorithm>
#include <chrono>

#include <torch/torch.h>

#include "common/timing.h"
#include "data/folder_dataset.h"
#include "models/attention_model.h"
#include "models/model_input.h"

namespace saccade {

namespace {

double elapsedMs(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The image mirrored left to right: another input of the same size, so a trace cannot reuse the last forward.
Image mirrored(const Image& image) {
    Image out = image;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            for (int c = 0; c < image.channels; ++c) out.at(x, y, c) = image.at(image.width - 1 - x, y, c);
    return out;
}

// The median time of a trace of `image` under `rule` right after one under `from` on the same image.
Result<double> switchMs(AttentionModel& model, const Image& image, const std::string& from, const std::string& rule, int repeats) {
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        if (auto t = model.trace(image, from, 1, "bench"); !t) return Error{t.error()};
        const auto t0 = std::chrono::steady_clock::now();
        if (auto t = model.trace(image, rule, 1, "bench"); !t) return Error{t.error()};
        ms.push_back(elapsedMs(t0));
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace

Result<ImportBenchResult> benchImport(const ImportBenchOptions& o) {
    // A dataset that cannot be opened is said before any timing.
    if (!o.dataset.empty() && !isImageFolder(o.dataset) && !datasetShape(o.dataset))
        if (auto d = openDataset(o.dataset); !d) return Error{d.error()};
    ImportBenchResult r;
    r.threads = at::get_num_threads();
    std::shared_ptr<AttentionModel> model;
    std::vector<double> opens;
    for (int i = 0; i < o.repeats; ++i) {
        model.reset();
        const auto t0 = std::chrono::steady_clock::now();
        auto m = loadAttentionModel(o.model, o.device, o.input);
        if (!m) return Error{m.error()};
        opens.push_back(elapsedMs(t0));
        model = *m;
    }
    std::sort(opens.begin(), opens.end());
    r.openMs = opens[opens.size() / 2];
    r.device = model->deviceName();
    r.preprocessing = model->preprocessing();
    r.summary = model->summary();
    r.inputSize = model->imageSize();
    r.channels = model->channels();
    auto fitted = fitToModel(*model, o.image);
    if (!fitted) return Error{fitted.error()};
    const std::vector<Image> images{fitted->image, mirrored(fitted->image)};
    const std::string rule = model->deterministicRule();
    auto t0 = std::chrono::steady_clock::now();
    if (auto t = model->trace(images[0], rule, 1, "bench"); !t) return Error{t.error()};
    r.firstTraceMs = elapsedMs(t0);
    std::string error;
    std::size_t next = 1;
    r.warmTraceMs = medianMs(o.repeats, [&] {
        if (auto t = model->trace(images[next++ % 2], rule, 1, "bench"); !t) error = t.error();
    });
    if (!error.empty()) return Error{error};
    const auto& menu = model->ruleMenu();
    for (const auto& other : menu.rules) {
        if (other == rule || menu.ranges.count(other)) continue;
        auto ms = switchMs(*model, images[0], rule, other, o.repeats);
        if (!ms) return Error{ms.error()};
        r.switchMs = *ms;
        r.switchRules = rule + " -> " + other;
        break;
    }
    if (!o.dataset.empty()) {
        auto dataset = openDatasetFor(*model, o.dataset, model->info().seed);
        if (!dataset) return Error{dataset.error()};
        r.evalImages = std::min(o.evalImages, (*dataset)->size(Split::Test));
        t0 = std::chrono::steady_clock::now();
        for (std::int64_t i = 0; i < r.evalImages; ++i) (*dataset)->sample(Split::Test, i);
        r.readMsPerImage = elapsedMs(t0) / double(std::max<std::int64_t>(1, r.evalImages));
        t0 = std::chrono::steady_clock::now();
        auto report = model->evaluate(**dataset, Split::Test, {rule}, r.evalImages, 1);
        if (!report) return Error{report.error()};
        r.evalMsPerImage = elapsedMs(t0) / double(std::max<std::int64_t>(1, r.evalImages));
    }
    return r;
}

}  // namespace saccade
