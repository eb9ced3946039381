#include "models/ram/ram_model.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>

#include <torch/torch.h>

#include "common/device.h"
#include "data/batch.h"
#include "attention/selection.h"
#include "models/batched_eval.h"
#include "models/gradient_forward.h"
#include "models/parameter_groups.h"
#include "models/model_input.h"
#include "models/model_loading.h"
#include "models/ram/ram_network.h"
#include "common/torch_errors.h"
#include "trace/rule_kind.h"

namespace saccade {

struct RamModel::Impl {
    RamConfig config;
    CheckpointInfo info;
    torch::Device device{torch::kCPU};
    RamNetwork net{nullptr};
    std::vector<std::string> classNames;
    std::unique_ptr<GradientForward> gradient;
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
        auto parsed = parseSelectionRule(spec);  // the engine's spelling of ksample:K
        if (!parsed) return Error{parsed.error()};
        if (parsed->k < 1 || parsed->k > 10000) return Error{"ksample needs 1 <= K <= 10000, got " + spec};
        return ParsedRule{RamRule::Sample, parsed->k, selectionRuleSpec(*parsed)};
    }
    return Error{"'" + spec + "' is not a rule of the recurrent attention model (use sample, mean, random or ksample:K)"};
}

// The differential entropy of the 2-D Gaussian policy over pixel positions (nats): log(2 pi e s^2)
// with s the standard deviation in pixels (in [-1, 1] units it would be negative and unreadable).
double policyEntropyPx(const RamConfig& c) {
    const double sigmaPx = c.locationStd * c.imageSize / 2;
    return std::log(2 * M_PI * std::exp(1.0) * sigmaPx * sigmaPx);
}

}  // namespace

GradientForward* RamModel::gradientForward() {
    auto& m = *m_impl;
    if (m.gradient) return m.gradient.get();
    auto logits = [&m](const torch::Tensor& images, const std::string& rule) {
        TORCH_CHECK(isRule(rule, RuleKind::Mean), "the recurrent attention model is differentiated under mean (its glimpses at the "
                    "policy means), not '", rule, "'");
        Rng rng(0);  // the mean rule draws nothing
        return m.net->forward(images, RamRule::Mean, rng).logits;
    };
    FunctionGradientForward::Weights weights{[&m] { return layerGroupsFromTop(*m.net); }, {}};
    auto f = std::make_unique<FunctionGradientForward>(m.device, "mean", logits, FunctionGradientForward::Grid{}, weights);
    f->setNoInputGradient("its glimpse sensor crops the pixels without a gradient, so its answer has none with respect to them");
    m.gradient = std::move(f);
    return m.gradient.get();
}

RamModel::RamModel() : m_impl(std::make_unique<Impl>()) {}
RamModel::~RamModel() = default;

Result<std::shared_ptr<RamModel>> RamModel::load(const std::string& path, const std::string& device) {
    auto header = openCheckpoint(path, device, "ram", "a recurrent attention model");
    if (!header) return Error{header.error()};
    auto config = ramConfigFromJson(header->info.configJson);
    if (!config) return configError(path, config.error());
    std::shared_ptr<RamModel> model(new RamModel());
    auto& m = *model->m_impl;
    m.config = *config;
    m.info = header->info;
    m.device = header->device;
    m.classNames = header->classNames;
    auto net = buildNet(path, [&] { return RamNetwork(m.config); });
    if (!net) return Error{net.error()};
    m.net = *net;
    if (auto loaded = loadNetWeights(*m.net, path, *header); !loaded) return Error{loaded.error()};
    return model;
}

const RamConfig& RamModel::config() const { return m_impl->config; }
const CheckpointInfo& RamModel::info() const { return m_impl->info; }
std::string RamModel::deviceName() const { return m_impl->device.str(); }
std::vector<std::string> RamModel::classNames() const { return m_impl->classNames; }
int RamModel::imageSize() const { return m_impl->config.imageSize; }
int RamModel::channels() const { return m_impl->config.inChannels; }
int RamModel::steps() const { return m_impl->config.glimpses; }

RuleMenu RamModel::ruleMenu() const { return {{"mean", "sample", "ksample", "random"}, {}}; }

std::string RamModel::displayName() const { return "recurrent attention model, " + m_impl->info.dataset; }

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
    auto input = modelInput(image, c.imageSize, c.inChannels, m.device);
    if (!input) return Error{input.error()};
    auto rule = parseRamRule(ruleSpec);
    if (!rule) return Error{rule.error()};
    try {
        torch::NoGradGuard noGrad;
        Rng rng(seed);
        const auto out = m.net->forward(*input, rule->rule, rng, /*stepLogits=*/true, rule->k);
        const auto locations = out.locations.to(torch::kCPU);  // [T, K, 2]
        const auto means = out.means.to(torch::kCPU);
        const double w = c.imageSize, sigmaPx = c.locationStd * w / 2;
        const double entropy = policyEntropyPx(c);
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
            step.outputProbs = toFloatVector(torch::softmax(out.stepLogits[s], -1).mean(0));
            t.steps.push_back(std::move(step));
        }
        t.output.probs = t.steps.back().outputProbs;
        t.output.label = int(std::max_element(t.output.probs.begin(), t.output.probs.end()) - t.output.probs.begin());
        if (t.output.label < int(t.classNames.size())) t.output.text = t.classNames[size_t(t.output.label)];
        t.groundTruth = truth;
        return validateTrace(t);
    } catch (const c10::Error& e) {
        return Error{std::string("trace failed: ") + torchErrorLine(e)};
    }
}

Result<RunSet> RamModel::sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                                    const std::optional<GroundTruth>& truth, int kSample, const Progress& progress) {
    auto& m = *m_impl;
    const auto& c = m.config;
    auto input = modelInput(image, c.imageSize, c.inChannels, m.device);
    if (!input) return Error{input.error()};
    const float entropy = float(policyEntropyPx(c));
    auto chunk = [&](std::uint64_t firstSeed, int count) -> Result<std::vector<RunRecord>> {
        try {
            torch::NoGradGuard noGrad;
            const auto seeds = runSeeds(firstSeed, count);
            auto rng = Rng::perRow(seeds);
            const auto out = m.net->forward(*input, RamRule::Sample, rng, false, count);
            auto records = runRecords(seeds, out.logits, out.logProb);
            const auto points = ((out.locations.to(torch::kCPU, torch::kDouble) + 1) * 0.5 * c.imageSize).to(torch::kFloat).contiguous();
            const auto p = points.accessor<float, 3>();  // [T, N, 2]
            for (int i = 0; i < count; ++i)
                for (int t = 0; t < c.glimpses; ++t) {
                    records[size_t(i)].points.push_back({p[t][i][0], p[t][i][1]});
                    // The first glimpse has no policy: no entropy (NaN, "n/a" in every view).
                    records[size_t(i)].entropy.push_back(t == 0 ? std::numeric_limits<float>::quiet_NaN() : entropy);
                }
            return records;
        } catch (const c10::Error& e) {
            return Error{std::string("runs failed: ") + torchErrorLine(e)};
        }
    };
    return collectRuns(*this, image, runs, seed, imageId, truth, kSample, "", chunk, progress);
}

Result<EvalReport> RamModel::evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                      std::int64_t limit, std::uint64_t seed, const Progress& progress,
                                         const Shard& shard) {
    auto& m = *m_impl;
    const auto& info = dataset.info();
    if (auto fits = checkDatasetFits(info, m.config.imageSize, m.config.inChannels); !fits) return Error{fits.error()};
    std::vector<ParsedRule> parsed;
    for (const auto& r : rules) {
        auto p = parseRamRule(r);
        if (!p) return Error{p.error()};
        parsed.push_back(*p);
    }
    std::vector<std::string> specs;
    for (const auto& p : parsed) specs.push_back(p.spec);
    auto predict = [&](const Batch& batch, const std::vector<std::int64_t>& idx) -> Result<std::vector<torch::Tensor>> {
        std::vector<torch::Tensor> predicted;
        for (const auto& rule : parsed) {
            auto rng = evaluationRng(seed, idx.front(), idx.size());
            auto probs = torch::zeros({batch.images.size(0), m.config.classes}, batch.images.options());
            for (std::int64_t k = 0; k < rule.k; ++k)
                probs += torch::softmax(m.net->forward(batch.images, rule.rule, rng).logits, -1);
            predicted.push_back(probs.argmax(-1));
        }
        return predicted;
    };
    return evaluateInBatches(dataset, split, specs, limit, 250, m.device, TrainingMode::Reinforce, predict, progress, shard);
}

}  // namespace saccade
