#include "analysis/runs/adversarial_attention.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <torch/torch.h>

#include "common/rng.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "common/torch_errors.h"

namespace saccade {

namespace {

constexpr double kAdversarialLogFloor = 1e-30;  // keeps log 0 finite; p log p -> 0 as p -> 0

// JS(p, q) in nats over the last dimension.
torch::Tensor adversarialJs(const torch::Tensor& p, const torch::Tensor& q) {
    const auto m = 0.5 * (p + q);
    const auto logM = m.clamp_min(kAdversarialLogFloor).log();
    const auto kl = [&](const torch::Tensor& a) { return (a * (a.clamp_min(kAdversarialLogFloor).log() - logM)).sum(-1); };
    return 0.5 * (kl(p) + kl(q));
}

torch::Tensor adversarialTv(const torch::Tensor& p, const torch::Tensor& q) {
    return 0.5 * (p - q).abs().sum(-1);
}

// The seed of image `index`'s start `restart`: the same whether it is searched alone or batched.
std::uint64_t adversarialStartSeed(std::uint64_t seed, std::uint64_t index, int restart) {
    return seed + index + static_cast<std::uint64_t>(restart) * 0x9E3779B97F4A7C15ULL;
}

// The farthest feasible attention found so far, per image.
struct AdversarialFarthest {
    torch::Tensor attention;  // [B, T, L]
    torch::Tensor jsSteps;    // [B, T]
    torch::Tensor js, tv;     // [B]
    torch::Tensor probs;      // [B, C]
};

void keepAdversarialFarther(AdversarialFarthest& best, const torch::Tensor& a, const torch::Tensor& jsSteps, const torch::Tensor& tv,
                 const torch::Tensor& probs, double epsilon) {
    const auto js = jsSteps.mean(-1);
    const auto better = (tv <= epsilon).logical_and(js > best.js);
    best.attention = torch::where(better.view({-1, 1, 1}), a, best.attention);
    best.jsSteps = torch::where(better.view({-1, 1}), jsSteps, best.jsSteps);
    best.js = torch::where(better, js, best.js);
    best.tv = torch::where(better, tv, best.tv);
    best.probs = torch::where(better.view({-1, 1}), probs, best.probs);
}

// One start: Adam on the attention logits, every iterate checked against the tolerance.
void searchAdversarialFrom(const AttentionHead& head, const torch::Tensor& start, const torch::Tensor& y,
                const AdversarialOptions& o, AdversarialFarthest& best) {
    auto z = start.clone().requires_grad_(true);
    torch::optim::Adam adam({z}, torch::optim::AdamOptions(o.learningRate));
    for (int k = 0;; ++k) {
        const auto a = torch::softmax(z, /*dim=*/-1);
        const auto probs = torch::softmax(head.run(a), /*dim=*/-1);
        const auto jsSteps = adversarialJs(a, head.attention);
        const auto tv = adversarialTv(probs, y);
        {
            torch::NoGradGuard noGrad;
            keepAdversarialFarther(best, a.detach(), jsSteps.detach(), tv.detach(), probs.detach(), o.epsilon);
        }
        if (k == o.steps) break;
        const auto objective = jsSteps.mean(-1) - o.penalty * torch::relu(tv - o.epsilon);
        // The gradient reaches z alone: the model's weights collect nothing.
        z.mutable_grad() = torch::autograd::grad({-objective.sum()}, {z})[0];
        adam.step();
    }
}

// The search on one batch's head; `indices` seed each image's starts.
AdversarialFarthest searchAdversarialBatch(const AttentionHead& head, const std::vector<std::uint64_t>& indices, const AdversarialOptions& o) {
    torch::Tensor y;
    AdversarialFarthest best;
    {
        torch::NoGradGuard noGrad;
        y = torch::softmax(head.logits, /*dim=*/-1);
        const auto B = head.attention.size(0), T = head.attention.size(1);
        best = {head.attention.clone(), torch::zeros({B, T}, y.options()), torch::zeros({B}, y.options()),
                torch::zeros({B}, y.options()), y.clone()};
    }
    const auto logAlpha = head.attention.clamp_min(kAdversarialLogFloor).log();
    for (int r = 0; r < o.restarts; ++r) {
        std::vector<std::uint64_t> seeds;
        for (auto i : indices) seeds.push_back(adversarialStartSeed(o.seed, i, r));
        auto rng = Rng::perRow(seeds);
        const auto noise = rng.normal({logAlpha.size(0), logAlpha.size(1) * logAlpha.size(2)}, logAlpha.device());
        searchAdversarialFrom(head, logAlpha + o.initNoise * noise.view_as(logAlpha).to(logAlpha.dtype()), y, o, best);
    }
    return best;
}

std::vector<double> adversarialRowValues(const torch::Tensor& row) {
    const auto cpu = row.to(torch::kCPU, torch::kDouble).contiguous();
    return {cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel()};
}

AdversarialImage adversarialImageResult(const AdversarialInput& in, const AttentionHead& head, const AdversarialFarthest& best, int64_t b) {
    AdversarialImage r;
    r.id = in.id;
    r.index = in.index;
    r.label = in.label;
    r.outputProbs = adversarialRowValues(torch::softmax(head.logits[b], -1));
    r.adversarialProbs = adversarialRowValues(best.probs[b]);
    r.predicted = int(head.logits[b].argmax().item<std::int64_t>());
    r.adversarialPredicted = int(best.probs[b].argmax().item<std::int64_t>());
    r.predictionChanged = r.predicted != r.adversarialPredicted;
    r.js = best.js[b].item<double>();
    r.jsSteps = adversarialRowValues(best.jsSteps[b]);
    r.tv = best.tv[b].item<double>();
    for (std::int64_t t = 0; t < head.attention.size(1); ++t) {
        r.learned.push_back(adversarialRowValues(head.attention[b][t]));
        r.adversarial.push_back(adversarialRowValues(best.attention[b][t]));
    }
    return r;
}

void summariseAdversarial(AdversarialReport& r) {
    if (r.images.empty()) return;
    std::vector<double> js, tv;
    for (const auto& i : r.images) {
        js.push_back(i.js);
        tv.push_back(i.tv);
        r.predictionsChanged += i.predictionChanged ? 1 : 0;
    }
    std::sort(js.begin(), js.end());
    const size_t n = js.size();
    r.jsMedian = n % 2 ? js[n / 2] : 0.5 * (js[n / 2 - 1] + js[n / 2]);
    double jsSum = 0, tvSum = 0, above = 0;
    for (double v : js) {
        jsSum += v;
        above += v > 0.5 * r.jsMax ? 1 : 0;
    }
    for (double v : tv) tvSum += v;
    r.jsMean = jsSum / double(n);
    r.shareAboveHalf = above / double(n);
    r.tvMean = tvSum / double(n);
    r.tvMax = *std::max_element(tv.begin(), tv.end());
}

// The inputs [first, last) as one batch on the model's device, searched.
Result<Unit> searchAdversarialInputs(GradientForward& forward, const AttentionModel& model,
                          const std::vector<AdversarialInput>& inputs, size_t first, size_t last,
                          const AdversarialOptions& o, AdversarialReport& report) {
    std::vector<torch::Tensor> images;
    std::vector<std::uint64_t> indices;
    for (size_t i = first; i < last; ++i) {
        auto x = modelInput(inputs[i].image, model.imageSize(), model.channels(), forward.device());
        if (!x) return Error{inputs[i].id + ": " + x.error()};
        images.push_back(*x);
        indices.push_back(inputs[i].index);
    }
    const AttentionHead head = forward.attentionHead(torch::cat(images));
    if (!head.run) return Error{model.displayName() + " has no soft attention to replace"};
    const auto best = searchAdversarialBatch(head, indices, o);
    report.rows = head.rows;
    report.cols = head.cols;
    report.attentionSteps = int(head.attention.size(1));
    for (size_t i = first; i < last; ++i) report.images.push_back(adversarialImageResult(inputs[i], head, best, std::int64_t(i - first)));
    return Unit{};
}

}  // namespace

Result<Unit> checkAdversarialOptions(const AdversarialOptions& o) {
    if (!(o.epsilon > 0 && o.epsilon < 1))
        return Error{"--epsilon must be between 0 and 1 (exclusive), got " + std::to_string(o.epsilon)};
    if (o.steps < 1) return Error{"--steps must be at least 1, got " + std::to_string(o.steps)};
    if (o.restarts < 1) return Error{"--restarts must be at least 1, got " + std::to_string(o.restarts)};
    if (o.batch < 1) return Error{"the batch must be at least 1, got " + std::to_string(o.batch)};
    if (!(o.learningRate > 0) || !(o.penalty > 0) || !(o.initNoise > 0))
        return Error{"the learning rate, penalty and start noise must be positive"};
    return Unit{};
}

Result<AdversarialReport> adversarialAttention(AttentionModel& model, const std::vector<AdversarialInput>& inputs,
                                               const AdversarialOptions& o, const Progress& progress) {
    if (auto ok = checkAdversarialOptions(o); !ok) return Error{ok.error()};
    GradientForward* forward = model.gradientForward();
    if (!forward || !forward->hasAttentionHead()) return Error{model.displayName() + " has no soft attention to replace"};
    const auto start = std::chrono::steady_clock::now();
    AdversarialReport report;
    report.model = model.displayName();
    report.options = o;
    report.jsMax = std::log(2.0);
    try {
        for (size_t first = 0; first < inputs.size(); first += size_t(o.batch)) {
            const size_t last = std::min(inputs.size(), first + size_t(o.batch));
            if (auto ok = searchAdversarialInputs(*forward, model, inputs, first, last, o, report); !ok) return Error{ok.error()};
            if (progress && !progress(double(last) / double(inputs.size())))
                return Error{"the adversarial attention search was cancelled"};
        }
    } catch (const c10::Error& e) {
        return Error{std::string("adversarial attention failed: ") + torchErrorLine(e)};
    }
    summariseAdversarial(report);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

Result<AdversarialReport> adversarialAttentionOnSplit(AttentionModel& model, const Dataset& dataset, Split split,
                                                      std::int64_t limit, const AdversarialOptions& o,
                                                      const Progress& progress) {
    const auto& info = dataset.info();
    const std::int64_t total = std::min(limit, dataset.size(split));
    if (total < 1) return Error{"the " + std::string(splitName(split)) + " split of " + info.name + " has no images to search"};
    std::vector<AdversarialInput> inputs;
    for (std::int64_t i = 0; i < total; ++i) {
        Sample s = dataset.sample(split, i);
        const std::string id = info.name + ":" + splitName(split) + ":" + std::to_string(i);
        inputs.push_back({std::move(s.image), id, s.label >= 0 ? std::optional<int>(s.label) : std::nullopt,
                          std::uint64_t(i)});
    }
    auto report = adversarialAttention(model, inputs, o, progress);
    if (report) report.value().dataset = info.name;
    return report;
}

}  // namespace saccade
