#include "models/script/script_model.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>


#include <nlohmann/json.hpp>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "common/torch_compat.h"
#include "common/device.h"
#include "common/parse.h"
#include "data/dataset.h"
#include "data/batch.h"
#include "models/batched_eval.h"
#include "models/gradient_forward.h"
#include "models/parameter_groups.h"
#include "models/model_input.h"
#include "models/script/script_archive.h"
#include "models/script/script_outputs.h"
#include "models/script/script_settings.h"
#include "models/transformer_maps.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {

constexpr const char* kForwardMethod = "forward";
constexpr const char* kSampledMethod = "forward_sampled";

// " + CLS", " + 5 prefix tokens (read-out 0)", or "".
std::string prefixText(const TokenGrid& g) {
    if (g.prefix == 0) return "";
    if (g.prefix == 1) return " + CLS";
    return " + " + std::to_string(g.prefix) + " prefix tokens (read-out " + std::to_string(g.readout) + ")";
}

std::string formName(ScriptForm f) {
    switch (f) {
        case ScriptForm::Grid: return "grid";
        case ScriptForm::Glimpses: return "glimpses";
        case ScriptForm::Transformer: return "transformer";
    }
    return "";
}

}  // namespace

struct ScriptModel::Impl {
    std::string path;
    torch::jit::Module module;
    torch::Device device{torch::kCPU};
    CheckpointInfo info;
    ScriptSettings settings;
    std::vector<std::string> classNames;
    int size = 0, channels = 1;
    torch::Tensor mean, std;  // [1, C, 1, 1] or undefined
    ScriptOutputs reference;  // what the probe returned (sizes every later call must keep)
    bool sampled = false;
    TokenGrid grid;
    int layers = 0, heads = 0;

    bool lastCallRaised = false;  // the last call's error came from the model raising, not the contract
    // The last transformer forward's image and outputs: its maps under every rule come from it.
    Image cachedImage;
    std::optional<ScriptOutputs> cachedOutputs;
    std::unique_ptr<GradientForward> gradient;  // forward with the graph kept (attribution)

    Result<Unit> probe();                         // finds the input shape; sets reference, size, channels
    // forward under the deterministic `rule` with the graph kept (attribution); an Error when the
    // model raises, breaks the contract, or its logits do not reach the images.
    Result<ScriptOutputs> graphCall(const torch::Tensor& images, const std::string& rule);
    Result<Unit> finish(const std::string& bytes);  // class names, token grid, the sampled probe, info

    // One checked call of forward (sampled: forward_sampled with `seed`) on images in [0, 1].
    // forward_sampled seeds the process-wide generator (torch.manual_seed): its state is put back
    // afterwards, so the call leaves other users of that generator as they were.
    Result<ScriptOutputs> call(const torch::Tensor& images, bool useSampled, std::uint64_t seed) {
        const std::string method = useSampled ? kSampledMethod : kForwardMethod;
        std::vector<c10::IValue> args;
        if (useSampled) args.push_back(static_cast<std::int64_t>(seed & 0x7fffffffffffffffULL));
        auto called = callScriptMethod(module, path, method, images, mean, std, args, useSampled, lastCallRaised);
        if (!called) return Error{called.error()};
        const c10::IValue& out = *called;
        Result<ScriptOutputs> read = Error{""};
        try {
            read = readScriptOutputs(out, images.size(0), method);
        } catch (const c10::Error& e) {
            return Error{"model '" + path + "': " + method + "'s outputs cannot be read: " + firstLine(e.what_without_backtrace())};
        }
        if (!read) return Error{"model '" + path + "': " + read.error()};
        if (reference.logits.defined()) {
            if (auto same = sameScriptShapes(reference, *read, method); !same)
                return Error{"model '" + path + "': " + same.error()};
        }
        return read;
    }

    Trace header(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId) const {
        Trace t;
        t.modelId = "torchscript/" + std::filesystem::path(path).filename().string();
        t.imageId = imageId;
        t.rule = rule;
        t.seed = seed;
        t.device = device.str();
        t.imageWidth = image.width;
        t.imageHeight = image.height;
        t.classNames = classNames;
        return t;
    }

    // The steps of run `i` of `o` (grid or glimpses).
    std::vector<TraceStep> steps(const ScriptOutputs& o, std::int64_t i) const {
        std::vector<TraceStep> out;
        const auto logits = o.logits[i].to(torch::kCPU);
        const double w = size, h = size;
        for (std::int64_t s = 0; s < o.steps(); ++s) {
            TraceStep step;
            if (o.form == ScriptForm::Grid) {
                const auto p = o.attention[i][s].to(torch::kCPU);
                step.grid = GridDistribution{int(p.size(0)), int(p.size(1)), toFloatVector(p.flatten())};
                step.entropy = entropyNats(step.grid->probs);
                if (o.chosen.defined()) {
                    const int cell = int(o.chosen[i][s].item<std::int64_t>());
                    step.chosenCells.push_back(cell);
                    step.logProb = std::log(std::max(1e-30, double(step.grid->probs[size_t(cell)])));
                }
            } else {
                const auto l = o.locations[i][s].to(torch::kCPU);
                const double x = (l[0].item<double>() + 1) / 2 * w, y = (l[1].item<double>() + 1) / 2 * h;
                step.chosenPoint = std::array<double, 2>{x, y};
                if (o.locationStd.defined()) {
                    const auto sd = o.locationStd[i][s].to(torch::kCPU);
                    const auto mu = o.locationMean.defined() ? o.locationMean[i][s].to(torch::kCPU) : l;
                    const double sx = sd[0].item<double>() * w / 2, sy = sd[1].item<double>() * h / 2;
                    step.gaussian = GaussianPolicy{(mu[0].item<double>() + 1) / 2 * w, (mu[1].item<double>() + 1) / 2 * h, sx, sy};
                    step.entropy = std::log(2 * M_PI * M_E * sx * sy);
                }
                if (o.glimpseSize.defined()) {
                    const double side = o.glimpseSize[i][s].item<double>() * w;
                    step.glimpses.push_back(GlimpseBox{0, Box{x - side / 2, y - side / 2, side, side}});
                }
            }
            if (o.perStepLogits) step.outputProbs = toFloatVector(torch::softmax(logits[s], -1));
            out.push_back(std::move(step));
        }
        return out;
    }
};

ScriptModel::ScriptModel() : m_impl(std::make_unique<Impl>()) {}
ScriptModel::~ScriptModel() = default;

Result<Unit> ScriptModel::Impl::probe() {
    auto shape = probeInputShape(settings, path, device, mean, std, [this](const torch::Tensor& grey) -> Result<Unit> {
        auto out = call(grey, false, 0);
        if (!out) return Error{out.error()};
        reference = *out;
        return Unit{};
    }, lastCallRaised);
    if (!shape) return Error{shape.error()};
    std::tie(channels, size) = *shape;
    return Unit{};
}

Result<Unit> ScriptModel::Impl::finish(const std::string& bytes) {
    const auto& st = settings;
    const auto classes = reference.classes();
    if (!st.classNames.empty() && std::int64_t(st.classNames.size()) != classes)
        return Error{"model '" + path + "': class_names has " + std::to_string(st.classNames.size()) +
                     " names but 'logits' has " + std::to_string(classes) + " classes"};
    if (!st.dataset.empty() && !datasetShape(st.dataset))
        return Error{"model '" + path + "': its dataset '" + st.dataset + "' is not one of Saccade's datasets (see saccade-cli data list)"};
    classNames = st.classNames;
    if (classNames.empty() && !st.dataset.empty()) {
        auto names = datasetClassNames(st.dataset);
        if (std::int64_t(names.size()) == classes) classNames = names;
    }
    for (std::int64_t k = std::int64_t(classNames.size()); k < classes; ++k) classNames.push_back("class " + std::to_string(k));
    if (reference.form == ScriptForm::Transformer) {
        auto g = tokenGrid(reference.attentions.size(3), st.patchGrid, st.prefixTokens, st.readoutToken);
        if (!g) return Error{"model '" + path + "': " + g.error()};
        grid = *g;
        layers = int(reference.attentions.size(1));
        heads = int(reference.attentions.size(2));
    } else if (st.prefixTokens >= 0) {
        return Error{"model '" + path + "': prefix_tokens applies to the transformer form only"};
    }
    if (sampled) {
        torch::jit::GraphOptimizerEnabledGuard unoptimised(false);
        auto out = call(torch::full({1, channels, size, size}, 0.5, torch::TensorOptions().device(device)), true, 1);
        if (!out) return Error{out.error()};
    }
    info.modelType = "torchscript";
    info.dataset = st.dataset;
    info.weightsCrc32 = crc32Hex(bytes);
    info.configJson = nlohmann::json{{"file", std::filesystem::path(path).filename().string()},
                                     {"form", formName(reference.form)},
                                     {"input_size", size},
                                     {"channels", channels},
                                     {"classes", classes},
                                     {"steps", reference.steps()},
                                     {"prefix_tokens", reference.form == ScriptForm::Transformer ? nlohmann::json(grid.prefix) : nlohmann::json()},
                                     {"forward_sampled", sampled}}
                          .dump();
    info.command = "imported TorchScript (" + std::filesystem::path(path).filename().string() + ")";
    return Unit{};
}

Result<std::shared_ptr<ScriptModel>> ScriptModel::load(const std::string& path, const std::string& device,
                                                       const InputOverrides& input) {
    auto archive = openScriptArchive(path, device);
    if (!archive) return Error{archive.error()};
    return load(std::move(*archive), input);
}

Result<std::shared_ptr<ScriptModel>> ScriptModel::load(const ScriptArchive& archive, const InputOverrides& input) {
    const auto& path = archive.path;
    if (!archive.module.find_method(kForwardMethod))
        return Error{notScriptModelText(path) + ": it has no forward method (a Saccade checkpoint needs its sidecar)"};
    std::shared_ptr<ScriptModel> model(new ScriptModel());
    auto& m = *model->m_impl;
    m.path = path;
    m.device = archive.device;
    m.module = archive.module;
    m.sampled = m.module.find_method(kSampledMethod).has_value();

    auto settings = readScriptSettings(m.module, archive.extraJson);
    if (!settings) return Error{"model '" + path + "': " + settings.error()};
    auto effective = effectiveSettings(*settings, input);
    if (!effective) return Error{"model '" + path + "': " + effective.error()};
    m.settings = *effective;
    if (auto probed = m.probe(); !probed) return Error{probed.error()};
    if (auto done = m.finish(archive.bytes); !done) return Error{done.error()};
    return model;
}

ImageFit ScriptModel::declaredFit() const {
    const auto& m = *m_impl;
    return {m.settings.resize > 0 ? m.settings.resize : m.size, m.size, m.size};
}

std::string ScriptModel::preprocessing() const {
    const auto& st = m_impl->settings;
    return describeFit(imageFit()) + "; normalised: " + describeNormalisation(st.mean, st.std);
}

std::string ScriptModel::form() const { return formName(m_impl->reference.form); }
int ScriptModel::heads() const { return m_impl->heads; }
bool ScriptModel::hasSampledForward() const { return m_impl->sampled; }
bool ScriptModel::hasStochasticRuns() const { return m_impl->sampled && m_impl->reference.form != ScriptForm::Transformer; }
const CheckpointInfo& ScriptModel::info() const { return m_impl->info; }
std::string ScriptModel::deviceName() const { return m_impl->device.str(); }
std::vector<std::string> ScriptModel::classNames() const { return m_impl->classNames; }
int ScriptModel::imageSize() const { return m_impl->size; }
int ScriptModel::channels() const { return m_impl->channels; }
int ScriptModel::steps() const { return int(m_impl->reference.steps()); }

// forward with autograd's graph kept from the images to every output: LibTorch records the
// module's operations as PyTorch does, so each gradient method runs on any differentiable import.
Result<ScriptOutputs> ScriptModel::Impl::graphCall(const torch::Tensor& images, const std::string& rule) {
    const std::string deterministic = reference.form == ScriptForm::Transformer ? "attention" : "forward";
    TORCH_CHECK(rule == deterministic, "an imported model is differentiated under ", deterministic, ", not '", rule, "'");
    torch::AutoGradMode enable(true);
    // The images always enter the graph, so that a grid or attention after frozen layers (or the
    // image itself) is differentiable too.
    const auto in = images.requires_grad() ? images : images.detach().requires_grad_(true);
    const auto x = mean.defined() ? (in - mean) / std : in;
    c10::IValue out;
    try {
        out = module.forward({x});
    } catch (const std::exception& e) {
        return Error{"model '" + path + "': forward failed: " + modelsOwnMessage(e)};
    }
    auto read = readScriptOutputs(out, images.size(0), kForwardMethod, /*keepGraph=*/true);
    if (!read) return Error{"model '" + path + "': " + read.error()};
    if (!read->logits.requires_grad())
        return Error{"model '" + path + "': its logits do not depend on the image through operations autograd can "
                     "follow (detached, computed under torch.no_grad, or converted to integers): no gradient method applies"};
    return read;
}

GradientForward* ScriptModel::gradientForward() {
    auto& m = *m_impl;
    if (m.gradient) return m.gradient.get();
    const std::string deterministic = deterministicRule();
    auto read = [&m](const torch::Tensor& images, const std::string& rule) {
        auto r = m.graphCall(images, rule);
        TORCH_CHECK(r.ok(), r.ok() ? "" : r.error());
        return std::move(*r);
    };
    auto logits = [read](const torch::Tensor& images, const std::string& rule) {
        return read(images, rule).logits.select(/*dim=*/1, -1);  // the answer: the last step's logits
    };
    FunctionGradientForward::Grid grid;
    if (m.reference.features.defined())
        grid = [read](const torch::Tensor& images, const std::string& rule) {
            auto o = read(images, rule);
            return GridForward{o.features, o.logits.select(1, -1)};
        };
    auto groups = [&m] {
        std::vector<std::pair<std::string, torch::Tensor>> named;
        for (const auto& p : m.module.named_parameters(/*recurse=*/true)) named.emplace_back(p.name, p.value);
        return layerGroupsFromTop(named);
    };
    FunctionGradientForward::Weights weights{groups, [&m] { m.cachedOutputs.reset(); }};
    auto f = std::make_unique<FunctionGradientForward>(m.device, deterministic, logits, grid, weights);
    f->setHints("forward returns no 'features' [N, C, h, w]",
                m.reference.form == ScriptForm::Transformer
                    ? "the 'attentions' it returns are stacked copies of its layers' weights, which its logits do not depend on"
                    : "");
    m.gradient = std::move(f);
    return m.gradient.get();
}

std::string ScriptModel::deterministicRule() const {
    return m_impl->reference.form == ScriptForm::Transformer ? "attention" : "forward";
}

std::vector<std::string> ScriptModel::evaluationRules() const {
    if (m_impl->reference.form == ScriptForm::Transformer) return {"attention"};
    if (m_impl->sampled) return {"forward", "sample", "ksample:10"};
    return {"forward"};
}

RuleMenu ScriptModel::ruleMenu() const {
    if (form() == "transformer") return {{"attention", "head", "rollout"}, {{"head", {0, heads() - 1}}}};
    if (hasSampledForward()) return {{"forward", "sample", "ksample"}, {}};
    return {{"forward"}, {}};
}

std::string ScriptModel::warning() const {
    const auto& logits = m_impl->reference.logits;
    if (!logits.defined() || (logits.amax(-1) - logits.amin(-1)).abs().max().item<double>() > 0) return {};
    return "model '" + m_impl->path + "' gives every class exactly the same logit on a grey image: its outputs are "
           "uniform and their gradients zero (a classifier head initialised at zero, as torchvision does, and never trained?)";
}

std::string ScriptModel::displayName() const { return "imported TorchScript model, " + form() + " form"; }

std::string ScriptModel::summary() const {
    const auto& m = *m_impl;
    const auto& r = m.reference;
    std::string s = "imported TorchScript " + std::filesystem::path(m.path).filename().string() + ": " +
                    std::to_string(m.size) + "x" + std::to_string(m.size) + "x" + std::to_string(m.channels) + " input, " +
                    std::to_string(r.classes()) + " classes, ";
    switch (r.form) {
        case ScriptForm::Grid:
            s += std::to_string(r.steps()) + " steps over a " + std::to_string(r.attention.size(2)) + "x" +
                 std::to_string(r.attention.size(3)) + " grid";
            break;
        case ScriptForm::Glimpses: s += std::to_string(r.steps()) + " glimpses"; break;
        case ScriptForm::Transformer:
            s += "transformer, " + std::to_string(m.layers) + " layers x " + std::to_string(m.heads) + " heads over " +
                 std::to_string(m.grid.rows) + "x" + std::to_string(m.grid.cols) + " patches" + prefixText(m.grid);
            break;
    }
    return s + (m.sampled ? ", forward_sampled" : "");
}

namespace {

std::string sampledRulesText(bool sampled) {
    return sampled ? "forward, sample or ksample:K" : "forward (it has no forward_sampled for sampled rules)";
}

// ksample:K, K in 1..10000; 0 when `rule` is not a ksample rule.
Result<int> kSampleOf(const std::string& rule) {
    if (!isRule(rule, RuleKind::KSample) || rule.find(':') == std::string::npos) return 0;
    auto k = parseInteger(rule.substr(8), "K", 1, 10000);
    if (!k) return Error{"'" + rule + "': " + k.error()};
    return int(*k);
}

}  // namespace

Result<Trace> ScriptModel::trace(const Image& image, const std::string& rule, std::uint64_t seed,
                                 const std::string& imageId, const std::optional<GroundTruth>& truth) {
    auto& m = *m_impl;
    auto input = modelInput(image, m.size, m.channels, m.device);
    if (!input) return Error{input.error()};
    try {
        if (m.reference.form == ScriptForm::Transformer) {
            auto parsed = parseTransformerRule(rule, m.heads);
            if (!parsed) return Error{parsed.error()};
            // Every rule's maps come from the same attention weights: one forward per image.
            if (!m.cachedOutputs || m.cachedImage.pixels != image.pixels || m.cachedImage.width != image.width) {
                m.cachedOutputs.reset();
                auto fresh = m.call(*input, false, 0);
                if (!fresh) return Error{fresh.error()};
                m.cachedOutputs = *fresh;
                m.cachedImage = image;
            }
            const auto& out = m.cachedOutputs;
            Trace t = m.header(image, parsed->spec, seed, imageId);
            t.steps = transformerSteps(out->attentions[0], m.grid, *parsed);
            t.output = classOutput(out->logits[0][-1], m.classNames);
            t.steps.back().outputProbs = t.output.probs;  // the answer, read after the last layer
            t.groundTruth = truth;
            return validateTrace(t);
        }
        auto k = kSampleOf(rule);
        if (!k) return Error{k.error()};
        const bool sample = isRule(rule, RuleKind::Sample) || *k > 0;
        if (!isRule(rule, RuleKind::Forward) && !sample)
            return Error{"'" + rule + "' is not a rule of this imported model (use " + sampledRulesText(m.sampled) + ")"};
        if (sample && !m.sampled)
            return Error{"'" + rule + "' needs forward_sampled(image, seed), which this model lacks (see docs/model-contract.md)"};
        Trace t = m.header(image, rule, seed, imageId);
        if (*k == 0) {
            auto out = m.call(*input, sample, seed);
            if (!out) return Error{out.error()};
            t.steps = m.steps(*out, 0);
            t.output = classOutput(out->logits[0][-1], m.classNames);
        } else {
            // K runs with seeds runSeed(seed, k): the mean map and output, every run's cell.
            std::vector<std::vector<TraceStep>> runs;
            torch::Tensor probs;
            for (int r = 0; r < *k; ++r) {
                auto out = m.call(*input, true, runSeed(seed, size_t(r)));
                if (!out) return Error{out.error()};
                runs.push_back(m.steps(*out, 0));
                auto p = torch::softmax(out->logits[0][-1], -1).to(torch::kCPU);
                probs = probs.defined() ? probs + p : p;
            }
            t.steps = runs.front();
            for (std::size_t s = 0; s < t.steps.size(); ++s) {
                auto& step = t.steps[s];
                step.chosenCells.clear();
                std::map<int, int> counts;
                double logProb = 0, entropy = 0, px = 0, py = 0;
                for (const auto& run : runs) {
                    const auto& rs = run[s];
                    for (int c : rs.chosenCells) ++counts[c];
                    logProb += rs.logProb;
                    entropy += rs.entropy;
                    if (rs.chosenPoint) { px += (*rs.chosenPoint)[0]; py += (*rs.chosenPoint)[1]; }
                    if (&run != &runs.front() && rs.grid)
                        for (std::size_t c = 0; c < rs.grid->probs.size(); ++c) step.grid->probs[c] += rs.grid->probs[c];
                }
                if (step.grid)
                    for (auto& p : step.grid->probs) p /= float(*k);
                // The mean of K runs' per-step outputs; one run's Gaussian and box would mislead.
                if (!step.outputProbs.empty()) {
                    for (std::size_t j = 0; j < step.outputProbs.size(); ++j) {
                        double sum = 0;
                        for (const auto& run : runs) sum += run[s].outputProbs[j];
                        step.outputProbs[j] = float(sum / *k);
                    }
                }
                step.gaussian.reset();
                step.glimpses.clear();
                std::vector<std::pair<int, int>> byCount(counts.begin(), counts.end());
                std::stable_sort(byCount.begin(), byCount.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
                for (const auto& [cell, n] : byCount) step.chosenCells.insert(step.chosenCells.end(), size_t(n), cell);
                step.logProb = logProb / *k;
                step.entropy = entropy / *k;
                if (step.chosenPoint) step.chosenPoint = std::array<double, 2>{px / *k, py / *k};
            }
            t.output = classOutput((probs / double(*k)).log(), m.classNames);
        }
        t.groundTruth = truth;
        return validateTrace(t);
    } catch (const c10::Error& e) {
        return Error{std::string("trace failed: ") + firstLine(e.what_without_backtrace())};
    }
}

Result<std::vector<std::vector<float>>> ScriptModel::outputProbs(const std::vector<Image>& images,
                                                                 const std::string& rule, std::uint64_t seed) {
    auto& m = *m_impl;
    if (m.reference.form == ScriptForm::Transformer) {
        if (auto parsed = parseTransformerRule(rule, m.heads); !parsed) return Error{parsed.error()};
    } else if (!isRule(rule, RuleKind::Forward)) {
        return AttentionModel::outputProbs(images, rule, seed);  // sampled: each image its own draws
    }
    std::vector<std::vector<float>> probs;
    constexpr std::size_t kChunk = 64;
    try {
        for (std::size_t first = 0; first < images.size(); first += kChunk) {
            std::vector<torch::Tensor> inputs;
            for (std::size_t i = first; i < std::min(images.size(), first + kChunk); ++i) {
                auto input = modelInput(images[i], m.size, m.channels, m.device);
                if (!input) return Error{input.error()};
                inputs.push_back(*input);
            }
            auto out = m.call(torch::cat(inputs, /*dim=*/0), false, 0);
            if (!out) return Error{out.error()};
            const auto p = torch::softmax(out->logits.select(1, -1), -1).to(torch::kCPU).contiguous();
            for (std::int64_t i = 0; i < p.size(0); ++i) probs.push_back(toFloatVector(p[i]));
        }
    } catch (const c10::Error& e) {
        return Error{std::string("a batched forward failed: ") + firstLine(e.what_without_backtrace())};
    }
    return probs;
}

Result<RunSet> ScriptModel::sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                                       const std::optional<GroundTruth>& truth, int kSample, const Progress& progress) {
    auto& m = *m_impl;
    if (!m.sampled)
        return Error{"this imported model has no forward_sampled(image, seed): stochastic runs need one (see docs/model-contract.md)"};
    auto input = modelInput(image, m.size, m.channels, m.device);
    if (!input) return Error{input.error()};
    auto chunk = [&](std::uint64_t firstSeed, int count) -> Result<std::vector<RunRecord>> {
        std::vector<RunRecord> records;
        for (const auto s : runSeeds(firstSeed, count)) {
            auto out = m.call(*input, true, s);
            if (!out) return Error{out.error()};
            const auto probs = toFloatVector(torch::softmax(out->logits[0][-1], -1));
            RunRecord r;
            r.seed = s;
            r.label = int(std::max_element(probs.begin(), probs.end()) - probs.begin());
            r.confidence = probs[size_t(r.label)];
            r.probs = probs;
            for (const auto& step : m.steps(*out, 0)) {
                if (step.grid) {
                    // The cell the run chose, or (no `chosen` output) its map's most attended cell.
                    const auto& p = step.grid->probs;
                    r.cells.push_back(step.chosenCells.empty() ? int(std::max_element(p.begin(), p.end()) - p.begin())
                                                               : step.chosenCells.front());
                }
                if (step.chosenPoint) r.points.push_back({float((*step.chosenPoint)[0]), float((*step.chosenPoint)[1])});
                r.entropy.push_back(float(step.entropy));
                r.logProb += step.logProb;
            }
            records.push_back(std::move(r));
        }
        return records;
    };
    return collectRuns(*this, image, runs, seed, imageId, truth, kSample, "", chunk, progress);
}

Result<EvalReport> ScriptModel::evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                         std::int64_t limit, std::uint64_t seed, const Progress& progress,
                                         const Shard& shard) {
    auto& m = *m_impl;
    const auto& info = dataset.info();
    if (auto fits = checkDatasetFits(info, m.size, m.channels); !fits) return Error{fits.error()};
    const bool transformer = m.reference.form == ScriptForm::Transformer;
    std::vector<int> kOf;
    for (const auto& rule : rules) {
        auto k = kSampleOf(rule);
        if (!k) return Error{k.error()};
        const bool sample = isRule(rule, RuleKind::Sample) || *k > 0;
        if (transformer && sample)
            return Error{"'" + rule + "': a transformer's attention is not sampled; stochastic rules need the grid or "
                         "locations form with forward_sampled (docs/model-contract.md)"};
        if (transformer && !isRule(rule, RuleKind::Attention))
            return Error{"'" + rule + "': a transformer's answer does not depend on the rule (rollout and head:K change "
                         "only the map); evaluate with 'attention'"};
        if (!transformer && !isRule(rule, RuleKind::Forward) && !sample)
            return Error{"'" + rule + "' is not an evaluation rule of this imported model (use " + sampledRulesText(m.sampled) + ")"};
        if (sample && !m.sampled) return Error{"'" + rule + "' needs forward_sampled(image, seed), which this model lacks"};
        kOf.push_back(isRule(rule, RuleKind::Sample) ? 1 : *k);
    }
    auto predict = [&](const Batch& batch, const std::vector<std::int64_t>& idx) -> Result<std::vector<torch::Tensor>> {
        std::vector<torch::Tensor> predicted;
        for (std::size_t r = 0; r < rules.size(); ++r) {
            if (kOf[r] == 0) {
                auto out = m.call(batch.images, false, 0);
                if (!out) return Error{out.error()};
                predicted.push_back(out->logits.select(1, -1).argmax(-1));
                continue;
            }
            // Image i draws with evaluationSeed(seed, i), as its own trace does.
            std::vector<std::int64_t> labels;
            for (std::size_t j = 0; j < idx.size(); ++j) {
                const auto image = batch.images.narrow(0, std::int64_t(j), 1);
                torch::Tensor sum;
                for (int k = 0; k < kOf[r]; ++k) {
                    const auto s = isRule(rules[r], RuleKind::Sample) ? evaluationSeed(seed, idx[j])
                                                        : runSeed(evaluationSeed(seed, idx[j]), size_t(k));
                    auto out = m.call(image, true, s);
                    if (!out) return Error{out.error()};
                    auto p = torch::softmax(out->logits[0][-1], -1);
                    sum = sum.defined() ? sum + p : p;
                }
                labels.push_back(sum.argmax().item<std::int64_t>());
            }
            predicted.push_back(torch::tensor(labels, torch::kInt64));
        }
        return predicted;
    };
    return evaluateInBatches(dataset, split, rules, limit, 100, m.device, TrainingMode::Imported, predict, progress, shard);
}

}  // namespace saccade
