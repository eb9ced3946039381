#include "models/patch/patch_model.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "data/batch.h"
#include "models/batched_eval.h"
#include "models/gradient_forward.h"
#include "models/parameter_groups.h"
#include "models/model_input.h"
#include "models/model_loading.h"
#include "models/patch/patch_classifier.h"
#include "common/torch_errors.h"
#include "trace/rule_kind.h"

namespace saccade {

struct PatchModel::Impl {
    PatchConfig config;
    CheckpointInfo info;
    torch::Device device{torch::kCPU};
    PatchClassifier net{nullptr};
    std::vector<std::string> classNames;
    std::unique_ptr<GradientForward> gradient;
};

namespace {

// Class probabilities [B, C] under an evaluation rule; ksample:K averages K sampled runs.
// `encoded` = net->encode(images), shared by every rule and every draw of ksample.
torch::Tensor classProbs(PatchClassifier& net, const torch::Tensor& images, const torch::Tensor& encoded,
                         const std::string& rule, Rng& rng) {
    auto parsed = parseSelectionRule(rule);
    TORCH_CHECK(parsed.ok(), parsed.error());
    if (parsed->rule == SelectionRule::KSample) {
        SelectionOptions sample;
        sample.rule = SelectionRule::Sample;
        auto sum = torch::zeros({images.size(0), net->config().classes}, images.options());
        for (std::int64_t k = 0; k < parsed->k; ++k)
            sum += torch::softmax(net->forwardEncoded(images, encoded, sample, rng).logits, -1);
        return sum / static_cast<double>(parsed->k);
    }
    return torch::softmax(net->forwardEncoded(images, encoded, *parsed, rng).logits, -1);
}

// A deterministic rule for a differentiable forward: nothing may be drawn.
SelectionOptions gradientRule(const std::string& spec) {
    auto parsed = parseSelectionRule(spec);
    TORCH_CHECK(parsed.ok(), parsed.ok() ? "" : parsed.error());
    const auto r = parsed->rule;
    TORCH_CHECK(r == SelectionRule::Argmax || r == SelectionRule::Soft || r == SelectionRule::TopK,
                "the patch classifier is differentiated under argmax, soft or topk:K, not '", spec, "'");
    return *parsed;
}

// The soft rule's head on a given attention (gradient_forward.h's AttentionHead): the images
// are encoded once, without a graph; `run` builds a graph only from the attention it is given.
AttentionHead softAttentionHead(PatchClassifier& net, const torch::Tensor& images) {
    AttentionHead head;
    torch::Tensor encoded, values;
    {
        torch::NoGradGuard noGrad;
        encoded = net->encode(images);
        values = net->softValues(images, encoded);
        Rng rng(0);  // the soft rule draws nothing
        const auto out = net->forwardEncoded(images, encoded, *parseSelectionRule("soft"), rng);
        head.attention = out.probs.transpose(0, 1).contiguous();  // [B, T, L]
        head.logits = out.logits;
    }
    head.rows = head.cols = net->config().grid;
    head.run = [net, encoded, values](const torch::Tensor& attention) mutable {
        return net->logitsUnderAttention(encoded, values, attention.transpose(0, 1));
    };
    return head;
}

}  // namespace

GradientForward* PatchModel::gradientForward() {
    auto& m = *m_impl;
    if (m.gradient) return m.gradient.get();
    auto logits = [&m](const torch::Tensor& images, const std::string& rule) {
        Rng rng(0);  // deterministic rules draw nothing
        return m.net->forward(images, gradientRule(rule), rng).logits;
    };
    FunctionGradientForward::Grid grid;
    if (m.config.variant != "select")
        grid = [&m](const torch::Tensor& images, const std::string& rule) {
            const auto options = gradientRule(rule);
            Rng rng(0);
            GridForward out;
            auto encoder = m.net->encoder();  // a holder: shares the module
            out.grid = encoder->forward(images);  // [B, D, g, g]
            const auto encoded = out.grid.flatten(/*start_dim=*/2).transpose(1, 2).contiguous();
            out.logits = m.net->forwardEncoded(images, encoded, options, rng).logits;
            return out;
        };
    FunctionGradientForward::Weights weights{[&m] { return layerGroupsFromTop(*m.net); }, {}};
    // Differentiated by default under the rule it was trained with where that rule has a gradient
    // (a soft model: soft; through argmax, integrated gradients do not converge), else argmax.
    const std::string rule = m.config.mode == TrainingMode::Soft ? "soft" : "argmax";
    auto forward = std::make_unique<FunctionGradientForward>(m.device, rule, logits, grid, weights);
    forward->setAttentionHead([&m](const torch::Tensor& images) { return softAttentionHead(m.net, images); });
    if (m.config.variant != "select") {
        // The dense encoder opens with a convolution: integrated gradients run it on the path's
        // ends only. (The select variant's patch network reads the pixels as well.)
        AffineInputSplit split;
        split.affine = [&m](const torch::Tensor& images) { return m.net->encoderStem(images); };
        split.pathLogits = [&m](const torch::Tensor& start, const torch::Tensor& direction, const torch::Tensor& alphas,
                                const std::string& rule) {
            const auto options = gradientRule(rule);
            Rng rng(0);
            const auto encoded = m.net->encodeStemPath(start, direction, alphas);
            return m.net->forwardEncoded(torch::Tensor(), encoded, options, rng).logits;
        };
        forward->setAffineInputSplit(std::move(split));
    }
    m.gradient = std::move(forward);
    return m.gradient.get();
}

PatchModel::PatchModel() : m_impl(std::make_unique<Impl>()) {}
PatchModel::~PatchModel() = default;

Result<std::shared_ptr<PatchModel>> PatchModel::load(const std::string& path, const std::string& device) {
    auto header = openCheckpoint(path, device, "patch", "a patch classifier");
    if (!header) return Error{header.error()};
    auto config = patchConfigFromJson(header->info.configJson);
    if (!config) return configError(path, config.error());
    std::shared_ptr<PatchModel> model(new PatchModel());
    auto& m = *model->m_impl;
    m.config = *config;
    m.info = header->info;
    m.device = header->device;
    m.classNames = header->classNames;
    auto net = buildNet(path, [&] { return PatchClassifier(m.config); });
    if (!net) return Error{net.error()};
    m.net = *net;
    if (auto loaded = loadNetWeights(*m.net, path, *header); !loaded) return Error{loaded.error()};
    return model;
}

const PatchConfig& PatchModel::config() const { return m_impl->config; }
const CheckpointInfo& PatchModel::info() const { return m_impl->info; }
std::string PatchModel::deviceName() const { return m_impl->device.str(); }
std::vector<std::string> PatchModel::classNames() const { return m_impl->classNames; }
int PatchModel::imageSize() const { return m_impl->config.imageSize; }
int PatchModel::channels() const { return m_impl->config.inChannels; }
int PatchModel::steps() const { return m_impl->config.steps; }
TrainingMode PatchModel::trainedMode() const { return m_impl->config.mode; }

RuleMenu PatchModel::ruleMenu() const {
    const auto& c = m_impl->config;
    return {{"argmax", "sample", "soft", "topk", "gumbel", "ksample"}, {{"topk", {1, c.grid * c.grid}}}};
}

std::string PatchModel::displayName() const { return trainingModeName(m_impl->config.mode) + " patch model, " + m_impl->info.dataset; }

CellGrid PatchModel::cellGrid() const {
    const auto& c = m_impl->config;
    return {c.grid, c.scorer, c.variant};
}

std::string PatchModel::summary() const {
    const auto& c = m_impl->config;
    return "patch classifier, " + c.variant + " variant: " + std::to_string(c.imageSize) + "x" +
           std::to_string(c.imageSize) + " input, " + std::to_string(c.grid) + "x" + std::to_string(c.grid) +
           " cells, " + std::to_string(c.steps) + " steps, " + c.scorer + " scorer";
}

Result<Trace> PatchModel::trace(const Image& image, const std::string& rule, std::uint64_t seed,
                                const std::string& imageId, const std::optional<GroundTruth>& truth) {
    auto& m = *m_impl;
    auto input = modelInput(image, m.config.imageSize, m.config.inChannels, m.device);
    if (!input) return Error{input.error()};
    auto parsed = parseSelectionRule(rule);
    if (!parsed) return Error{parsed.error()};
    // ksample:K runs K sampled paths at once (one batch of K copies) and summarises them.
    const bool kSample = parsed->rule == SelectionRule::KSample;
    const std::int64_t runs = kSample ? parsed->k : 1;
    if (kSample && (runs < 1 || runs > 10000)) return Error{"ksample needs 1 <= K <= 10000, got " + rule};
    try {
        torch::NoGradGuard noGrad;
        auto x = *input;
        Rng rng(seed);
        SelectionOptions forwardRule = *parsed;
        if (kSample) {
            x = x.expand({runs, x.size(1), x.size(2), x.size(3)}).contiguous();
            forwardRule.rule = SelectionRule::Sample;
        }
        const auto out = m.net->forward(x, forwardRule, rng);
        Trace t;
        t.modelId = "patch/" + trainingModeName(m.config.mode) + "/" + m.info.dataset;
        t.imageId = imageId;
        t.rule = selectionRuleSpec(*parsed);
        t.seed = seed;
        t.device = m.device.str();
        t.imageWidth = image.width;
        t.imageHeight = image.height;
        t.classNames = m.classNames;
        // One run: its own values. ksample: the mean over the runs, and the cell of every run at
        // the step (K entries, repeats kept so views can count them), most often chosen first.
        const auto indices = out.indices.to(torch::kCPU);
        for (int s = 0; s < m.config.steps; ++s) {
            TraceStep step;
            step.grid = GridDistribution{m.config.grid, m.config.grid, toFloatVector(out.probs[s].mean(0))};
            if (kSample) {
                std::map<int, int> counts;
                for (std::int64_t r = 0; r < indices.size(1); ++r)
                    ++counts[int(indices[s][r][0].item<std::int64_t>())];
                std::vector<std::pair<int, int>> byCount(counts.begin(), counts.end());
                std::stable_sort(byCount.begin(), byCount.end(),
                                 [](const auto& a, const auto& b) { return a.second > b.second; });
                for (const auto& entry : byCount) step.chosenCells.insert(step.chosenCells.end(), entry.second, entry.first);
            } else {
                for (std::int64_t k = 0; k < indices.size(2); ++k)
                    step.chosenCells.push_back(int(indices[s][0][k].item<std::int64_t>()));
            }
            step.logProb = out.logProb[s].mean().item<double>();
            step.entropy = out.entropy[s].mean().item<double>();
            step.outputProbs = toFloatVector(torch::softmax(out.stepLogits[s], -1).mean(0));
            t.steps.push_back(std::move(step));
        }
        t.output.probs = t.steps.back().outputProbs;
        t.output.label = int(std::max_element(t.output.probs.begin(), t.output.probs.end()) -
                             t.output.probs.begin());
        if (!t.classNames.empty() && t.output.label < int(t.classNames.size()))
            t.output.text = t.classNames[t.output.label];
        t.groundTruth = truth;
        return validateTrace(t);
    } catch (const c10::Error& e) {
        return Error{std::string("trace failed: ") + torchErrorLine(e)};
    }
}

Result<RunSet> PatchModel::sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                                      const std::optional<GroundTruth>& truth, int kSample, const Progress& progress) {
    auto& m = *m_impl;
    auto input = modelInput(image, m.config.imageSize, m.config.inChannels, m.device);
    if (!input) return Error{input.error()};
    const auto sample = parseSelectionRule("sample");
    if (!sample) return Error{sample.error()};
    auto chunk = [&](std::uint64_t firstSeed, int count) -> Result<std::vector<RunRecord>> {
        try {
            torch::NoGradGuard noGrad;
            const auto seeds = runSeeds(firstSeed, count);
            auto rng = Rng::perRow(seeds);
            const auto out = m.net->forward(*input, *sample, rng, {}, count);
            auto records = runRecords(seeds, out.logits, out.logProb);
            const auto cells = out.indices.select(2, 0).to(torch::kCPU).contiguous();  // [T, N]
            const auto entropy = out.entropy.to(torch::kCPU, torch::kFloat).contiguous();
            const auto cell = cells.accessor<std::int64_t, 2>();
            const auto ent = entropy.accessor<float, 2>();
            for (int i = 0; i < count; ++i)
                for (int t = 0; t < m.config.steps; ++t) {
                    records[size_t(i)].cells.push_back(int(cell[t][i]));
                    records[size_t(i)].entropy.push_back(ent[t][i]);
                }
            return records;
        } catch (const c10::Error& e) {
            return Error{std::string("runs failed: ") + torchErrorLine(e)};
        }
    };
    return collectRuns(*this, image, runs, seed, imageId, truth, kSample, "soft", chunk, progress);
}

Result<EvalReport> PatchModel::evaluate(const Dataset& dataset, Split split,
                                        const std::vector<std::string>& rules, std::int64_t limit,
                                        std::uint64_t seed, const Progress& progress,
                                         const Shard& shard) {
    auto& m = *m_impl;
    const auto& info = dataset.info();
    if (auto fits = checkDatasetFits(info, m.config.imageSize, m.config.inChannels); !fits) return Error{fits.error()};
    for (const auto& rule : rules) {
        if (isRule(rule, RuleKind::Mean) || isRule(rule, RuleKind::Random) || isRule(rule, RuleKind::TopK))
            return Error{"'" + rule + "' is not an evaluation rule of the patch classifier (use soft, "
                         "sample, argmax, ksample:K or gumbel:TAU)"};
        if (auto parsed = parseSelectionRule(rule); !parsed) return Error{parsed.error()};
    }
    auto predict = [&](const Batch& batch, const std::vector<std::int64_t>& idx) -> Result<std::vector<torch::Tensor>> {
        const auto encoded = m.net->encode(batch.images);  // once for every rule
        std::vector<torch::Tensor> predicted;
        for (const auto& rule : rules) {
            auto rng = evaluationRng(seed, idx.front(), idx.size());
            predicted.push_back(classProbs(m.net, batch.images, encoded, rule, rng).argmax(-1));
        }
        return predicted;
    };
    return evaluateInBatches(dataset, split, rules, limit, 250, m.device, m.config.mode, predict, progress, shard);
}

}  // namespace saccade
