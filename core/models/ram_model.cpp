#include "models/ram_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <torch/torch.h>

#include "common/device.h"
#include "data/batch.h"
#include "models/ram_network.h"

namespace saccade {

struct RamModel::Impl {
    RamConfig config;
    CheckpointInfo info;
    torch::Device device{torch::kCPU};
    RamNetwork net{nullptr};
    std::vector<std::string> classNames;
};

namespace {

struct ParsedRule {
    RamRule rule = RamRule::Sample;
    std::int64_t k = 1;  ///< ksample: episodes averaged
    std::string spec;
};

Result<ParsedRule> parseRamRule(const std::string& spec) {
    if (spec == "sample") return ParsedRule{RamRule::Sample, 1, spec};
    if (spec == "mean") return ParsedRule{RamRule::Mean, 1, spec};
    if (spec == "random") return ParsedRule{RamRule::Random, 1, spec};
    if (spec.rfind("ksample", 0) == 0) {
        std::int64_t k = 10;
        if (spec.size() > 7) {
            if (spec[7] != ':') return Error{"bad rule '" + spec + "' (use ksample:K)"};
            try {
                size_t used = 0;
                k = std::stoll(spec.substr(8), &used);
                if (used != spec.size() - 8) throw std::invalid_argument("trailing");
            } catch (const std::exception&) {
                return Error{"bad rule '" + spec + "' (use ksample:K with 1 <= K <= 10000)"};
            }
        }
        if (k < 1 || k > 10000) return Error{"ksample needs 1 <= K <= 10000, got " + spec};
        return ParsedRule{RamRule::Sample, k, "ksample:" + std::to_string(k)};
    }
    return Error{"'" + spec + "' is not a rule of the recurrent attention model (use sample, mean, random or ksample:K)"};
}

std::vector<float> toVector(const torch::Tensor& t) {
    const auto c = t.to(torch::kCPU, torch::kFloat).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

}  // namespace

RamModel::RamModel() : m_impl(std::make_unique<Impl>()) {}
RamModel::~RamModel() = default;

Result<std::shared_ptr<RamModel>> RamModel::load(const std::string& path, const std::string& device) {
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    if (info->modelType != "ram")
        return Error{"checkpoint '" + path + "' holds a '" + info->modelType + "' model, not a recurrent attention model"};
    auto config = ramConfigFromJson(info->configJson);
    if (!config) return Error{"checkpoint '" + path + "': " + config.error()};
    auto dev = resolveDevice(device);
    if (!dev) return Error{dev.error()};
    std::shared_ptr<RamModel> model(new RamModel());
    auto& m = *model->m_impl;
    m.config = *config;
    m.info = *info;
    m.device = *dev;
    m.net = RamNetwork(m.config);
    m.net->to(m.device);
    auto loaded = loadCheckpointWeights(*m.net, nullptr, path, &m.device);
    if (!loaded) return Error{loaded.error()};
    m.net->eval();
    if (auto d = openDataset(info->dataset); d) m.classNames = (*d)->info().classNames;
    return model;
}

const RamConfig& RamModel::config() const { return m_impl->config; }
const CheckpointInfo& RamModel::info() const { return m_impl->info; }
std::string RamModel::deviceName() const { return m_impl->device.str(); }
std::vector<std::string> RamModel::classNames() const { return m_impl->classNames; }
int RamModel::imageSize() const { return m_impl->config.imageSize; }
int RamModel::channels() const { return m_impl->config.inChannels; }
int RamModel::steps() const { return m_impl->config.glimpses; }

std::string RamModel::summary() const {
    const auto& c = m_impl->config;
    return "recurrent attention model: " + std::to_string(c.imageSize) + "x" + std::to_string(c.imageSize) +
           " input, " + std::to_string(c.glimpses) + " glimpses of " + std::to_string(c.scales) + " scale(s) (g " +
           std::to_string(c.glimpseSize) + ", s " + std::to_string(c.scaleFactor) + "), " + c.core +
           " core " + std::to_string(c.hidden) + ", location std " + std::to_string(c.locationStd).substr(0, 4);
}

Result<Trace> RamModel::trace(const Image& image, const std::string& ruleSpec, std::uint64_t seed,
                              const std::string& imageId, const std::optional<GroundTruth>& truth) {
    auto& m = *m_impl;
    const auto& c = m.config;
    if (image.width != c.imageSize || image.height != c.imageSize || image.channels != c.inChannels) {
        return Error{"the model takes " + std::to_string(c.imageSize) + "x" + std::to_string(c.imageSize) +
                     " images with " + std::to_string(c.inChannels) + " channel(s); got " +
                     std::to_string(image.width) + "x" + std::to_string(image.height) + " with " +
                     std::to_string(image.channels)};
    }
    auto rule = parseRamRule(ruleSpec);
    if (!rule) return Error{rule.error()};
    try {
        torch::NoGradGuard noGrad;
        const auto bytes = torch::from_blob(const_cast<std::uint8_t*>(image.pixels.data()),
                                            {1, image.height, image.width, image.channels}, torch::kUInt8);
        const auto x = bytes.permute({0, 3, 1, 2}).to(torch::kFloat).div(255.0).to(m.device);
        Rng rng(seed);
        const auto out = m.net->forward(x, rule->rule, rng, /*stepLogits=*/true, rule->k);
        const auto locations = out.locations.to(torch::kCPU);  // [T, K, 2]
        const auto means = out.means.to(torch::kCPU);
        const double w = c.imageSize, sigmaPx = c.locationStd * w / 2;
        const double entropy = std::log(2 * M_PI * std::exp(1.0) * c.locationStd * c.locationStd);
        const auto geometry = m.net->geometry();
        auto toPixel = [&](double v) { return (v + 1) * 0.5 * w; };

        Trace t;
        t.modelId = "ram/" + m.info.dataset;
        t.imageId = imageId;
        t.rule = rule->spec;
        t.seed = seed;
        t.device = m.device.str();
        t.imageWidth = t.imageHeight = c.imageSize;
        t.classNames = m.classNames;
        for (int s = 0; s < c.glimpses; ++s) {
            TraceStep step;
            const auto mean = locations[s].mean(0);
            const double lx = mean[0].item<double>(), ly = mean[1].item<double>();
            step.chosenPoint = std::array<double, 2>{toPixel(lx), toPixel(ly)};
            if (s > 0 && rule->rule != RamRule::Random) {
                const auto mu = means[s].mean(0);
                step.gaussian = GaussianPolicy{toPixel(mu[0].item<double>()), toPixel(mu[1].item<double>()), sigmaPx, sigmaPx};
                step.entropy = entropy;
            }
            if (rule->k == 1) {
                const auto boxes = glimpseBoxes(lx, ly, geometry);
                for (int i = 0; i < int(boxes.size()); ++i) step.glimpses.push_back(GlimpseBox{i, boxes[size_t(i)]});
            } else {
                for (std::int64_t e = 0; e < rule->k; ++e)
                    step.glimpses.push_back(GlimpseBox{0, glimpseBoxes(locations[s][e][0].item<double>(),
                                                                       locations[s][e][1].item<double>(), geometry)[0]});
            }
            step.logProb = out.logProb[s].mean().item<double>();
            step.outputProbs = toVector(torch::softmax(out.stepLogits[s], -1).mean(0));
            t.steps.push_back(std::move(step));
        }
        t.output.probs = t.steps.back().outputProbs;
        t.output.label = int(std::max_element(t.output.probs.begin(), t.output.probs.end()) - t.output.probs.begin());
        if (t.output.label < int(t.classNames.size())) t.output.text = t.classNames[size_t(t.output.label)];
        t.groundTruth = truth;
        return validateTrace(t);
    } catch (const c10::Error& e) {
        return Error{std::string("trace failed: ") + e.what_without_backtrace()};
    }
}

Result<EvalReport> RamModel::evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                      std::int64_t limit, std::uint64_t seed, const Progress& progress) {
    auto& m = *m_impl;
    const auto& info = dataset.info();
    if (info.width != m.config.imageSize || info.channels != m.config.inChannels)
        return Error{"dataset " + info.name + " has " + std::to_string(info.width) + "x" + std::to_string(info.height) +
                     " images; the model takes " + std::to_string(m.config.imageSize)};
    std::vector<ParsedRule> parsed;
    for (const auto& r : rules) {
        auto p = parseRamRule(r);
        if (!p) return Error{p.error()};
        parsed.push_back(*p);
    }
    const auto n = limit > 0 ? std::min(limit, dataset.size(split)) : dataset.size(split);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::int64_t> correct(rules.size(), 0);
    constexpr std::int64_t kBatch = 250;
    try {
        torch::NoGradGuard noGrad;
        std::vector<Rng> rngs;
        for (std::size_t r = 0; r < rules.size(); ++r) rngs.emplace_back(seed + r);
        for (std::int64_t first = 0; first < n; first += kBatch) {
            std::vector<std::int64_t> idx;
            for (std::int64_t i = first; i < std::min(n, first + kBatch); ++i) idx.push_back(i);
            const auto batch = makeBatch(dataset, split, idx, m.device);
            for (std::size_t r = 0; r < rules.size(); ++r) {
                auto probs = torch::zeros({batch.images.size(0), m.config.classes}, batch.images.options());
                for (std::int64_t k = 0; k < parsed[r].k; ++k)
                    probs += torch::softmax(m.net->forward(batch.images, parsed[r].rule, rngs[r]).logits, -1);
                correct[r] += (probs.argmax(-1) == batch.labels).sum().item<std::int64_t>();
            }
            if (progress && !progress(double(first + idx.size()) / n)) return Error{"evaluation cancelled"};
        }
    } catch (const c10::Error& e) {
        return Error{std::string("evaluation failed: ") + e.what_without_backtrace()};
    }
    EvalReport report;
    report.dataset = info.name;
    report.split = splitName(split);
    report.trainedMode = "reinforce";
    for (std::size_t r = 0; r < rules.size(); ++r) report.rules.push_back(wilsonAccuracy(parsed[r].spec, correct[r], n));
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

}  // namespace saccade
