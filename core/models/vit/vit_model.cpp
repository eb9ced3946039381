#include "models/vit/vit_model.h"

#include <torch/torch.h>

#include "models/batched_eval.h"
#include "models/gradient_forward.h"
#include "models/parameter_groups.h"
#include "models/model_input.h"
#include "models/model_loading.h"
#include "models/transformer_maps.h"
#include "models/vit/vit_network.h"
#include "trace/rule_kind.h"

namespace saccade {

struct VitModel::Impl {
    VitConfig config;
    CheckpointInfo info;
    torch::Device device{torch::kCPU};
    VitNetwork net{nullptr};
    std::vector<std::string> classNames;
    // The last image traced and its forward: every rule's maps come from the same attention weights.
    Image cachedImage;
    torch::Tensor cachedAttentions, cachedLogits;
    std::unique_ptr<GradientForward> gradient;
};

GradientForward* VitModel::gradientForward() {
    auto& m = *m_impl;
    if (m.gradient) return m.gradient.get();
    auto logits = [&m](const torch::Tensor& images, const std::string& rule) {
        auto parsed = parseTransformerRule(rule, m.config.heads);  // the answer does not depend on it
        TORCH_CHECK(parsed.ok(), parsed.ok() ? "" : parsed.error());
        return m.net->forward(images).logits;
    };
    FunctionGradientForward::Weights weights{[&m] { return layerGroupsFromTop(*m.net); },
                                             [&m] { m.cachedAttentions = torch::Tensor(); }};
    auto gradient = std::make_unique<FunctionGradientForward>(m.device, "attention", logits, FunctionGradientForward::Grid{}, weights);
    gradient->setAttentionGraph([&m](const torch::Tensor& images, const std::string& rule) {
        auto parsed = parseTransformerRule(rule, m.config.heads);
        TORCH_CHECK(parsed.ok(), parsed.ok() ? "" : parsed.error());
        auto out = m.net->forward(images, /*keepAttention=*/true);
        AttentionGraph g;
        g.logits = out.logits;
        g.attentions = std::move(out.layerAttentions);
        g.prefix = 1;  // the CLS token, whose row is read
        g.gridRows = g.gridCols = m.config.grid();
        return g;
    });
    m.gradient = std::move(gradient);
    return m.gradient.get();
}

VitModel::VitModel() : m_impl(std::make_unique<Impl>()) {}
VitModel::~VitModel() = default;

Result<std::shared_ptr<VitModel>> VitModel::load(const std::string& path, const std::string& device) {
    auto header = openCheckpoint(path, device, "vit", "a vision transformer");
    if (!header) return Error{header.error()};
    auto config = vitConfigFromJson(header->info.configJson);
    if (!config) return configError(path, config.error());
    std::shared_ptr<VitModel> model(new VitModel());
    auto& m = *model->m_impl;
    m.config = *config;
    m.info = header->info;
    m.device = header->device;
    m.classNames = header->classNames;
    for (auto k = m.classNames.size(); k < size_t(m.config.classes); ++k) m.classNames.push_back("class " + std::to_string(k));
    auto net = buildNet(path, [&] { return VitNetwork(m.config); });
    if (!net) return Error{net.error()};
    m.net = *net;
    if (auto loaded = loadNetWeights(*m.net, path, *header); !loaded) return Error{loaded.error()};
    return model;
}

const VitConfig& VitModel::config() const { return m_impl->config; }
const CheckpointInfo& VitModel::info() const { return m_impl->info; }
std::string VitModel::deviceName() const { return m_impl->device.str(); }
std::vector<std::string> VitModel::classNames() const { return m_impl->classNames; }
int VitModel::imageSize() const { return m_impl->config.imageSize; }
int VitModel::channels() const { return m_impl->config.inChannels; }
int VitModel::steps() const { return m_impl->config.layers; }

RuleMenu VitModel::ruleMenu() const {
    return {{"attention", "head", "rollout"}, {{"head", {0, m_impl->config.heads - 1}}}};
}

std::string VitModel::displayName() const { return "vision transformer, " + m_impl->info.dataset; }

std::string VitModel::summary() const {
    const auto& c = m_impl->config;
    return "vision transformer: " + std::to_string(c.imageSize) + "x" + std::to_string(c.imageSize) + " input, " +
           std::to_string(c.grid()) + "x" + std::to_string(c.grid()) + (c.shiftedPatches ? " shifted" : "") +
           " patches of " + std::to_string(c.patch) + " px + CLS, " + std::to_string(c.layers) + " layers x " +
           std::to_string(c.heads) + " heads, width " + std::to_string(c.dim);
}

Result<Trace> VitModel::trace(const Image& image, const std::string& ruleSpec, std::uint64_t seed,
                              const std::string& imageId, const std::optional<GroundTruth>& truth) {
    auto& m = *m_impl;
    auto input = modelInput(image, m.config.imageSize, m.config.inChannels, m.device);
    if (!input) return Error{input.error()};
    auto rule = parseTransformerRule(ruleSpec, m.config.heads);
    if (!rule) return Error{rule.error()};
    try {
        torch::NoGradGuard noGrad;
        if (!m.cachedAttentions.defined() || m.cachedImage.pixels != image.pixels || m.cachedImage.width != image.width) {
            m.cachedAttentions = torch::Tensor();
            const auto out = m.net->forward(*input, /*keepAttention=*/true);
            m.cachedAttentions = out.attentions[0];
            m.cachedLogits = out.logits[0];
            m.cachedImage = image;
        }
        Trace t;
        t.modelId = "vit/" + m.info.dataset;
        t.imageId = imageId;
        t.rule = rule->spec;
        t.seed = seed;
        t.device = m.device.str();
        t.imageWidth = image.width;
        t.imageHeight = image.height;
        t.classNames = m.classNames;
        t.steps = transformerSteps(m.cachedAttentions, TokenGrid{m.config.grid(), m.config.grid(), 1, 0}, *rule);
        t.output = classOutput(m.cachedLogits, m.classNames);
        t.steps.back().outputProbs = t.output.probs;  // the answer, read after the last layer
        t.groundTruth = truth;
        return validateTrace(t);
    } catch (const c10::Error& e) {
        return Error{std::string("trace failed: ") + firstLine(e.what_without_backtrace())};
    }
}

Result<std::vector<std::vector<float>>> VitModel::outputProbs(const std::vector<Image>& images, const std::string& rule,
                                                              std::uint64_t) {
    auto& m = *m_impl;
    if (auto parsed = parseTransformerRule(rule, m.config.heads); !parsed) return Error{parsed.error()};
    std::vector<std::vector<float>> probs;
    constexpr std::size_t kChunk = 64;
    try {
        torch::NoGradGuard noGrad;
        for (std::size_t first = 0; first < images.size(); first += kChunk) {
            std::vector<torch::Tensor> inputs;
            for (std::size_t i = first; i < std::min(images.size(), first + kChunk); ++i) {
                auto input = modelInput(images[i], m.config.imageSize, m.config.inChannels, m.device);
                if (!input) return Error{input.error()};
                inputs.push_back(*input);
            }
            const auto logits = m.net->forward(torch::cat(inputs, /*dim=*/0)).logits;
            const auto p = torch::softmax(logits, -1).to(torch::kCPU).contiguous();
            for (std::int64_t i = 0; i < p.size(0); ++i) probs.push_back(toFloatVector(p[i]));
        }
    } catch (const c10::Error& e) {
        return Error{std::string("a batched forward failed: ") + firstLine(e.what_without_backtrace())};
    }
    return probs;
}

Result<RunSet> VitModel::sampleRuns(const Image&, int, std::uint64_t, const std::string&, const std::optional<GroundTruth>&,
                                    int, const Progress&) {
    return Error{"a vision transformer's attention is not sampled: it has no stochastic runs (its rules attention, "
                 "rollout and head:K show its maps)"};
}

Result<EvalReport> VitModel::evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                      std::int64_t limit, std::uint64_t, const Progress& progress, const Shard& shard) {
    auto& m = *m_impl;
    if (auto fits = checkDatasetFits(dataset.info(), m.config.imageSize, m.config.inChannels); !fits) return Error{fits.error()};
    for (const auto& rule : rules)
        if (!isRule(rule, RuleKind::Attention))
            return Error{"'" + rule + "' is not an evaluation rule of a vision transformer: its answer does not depend "
                         "on a rule and nothing in it is sampled (use attention)"};
    auto predict = [&](const Batch& batch, const std::vector<std::int64_t>&) -> Result<std::vector<torch::Tensor>> {
        const auto predicted = m.net->forward(batch.images).logits.argmax(-1);
        return std::vector<torch::Tensor>(rules.size(), predicted);
    };
    return evaluateInBatches(dataset, split, rules, limit, 250, m.device, TrainingMode::Soft, predict, progress, shard);
}

}  // namespace saccade
