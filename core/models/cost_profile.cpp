#include "models/cost_profile.h"
#include "models/script_model.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/stage_clock.h"
#include "models/caption_network.h"
#include "models/patch_classifier.h"
#include "models/ram_network.h"
#include "io/checkpoint.h"

namespace saccade {

namespace {

// FLOPs of a Sequential on one [C, H, W] input: each layer's output shape comes from a forward
// pass of zeros; convolutions and linear layers are counted from their weight shapes.
double sequentialFlops(torch::nn::Sequential& net, int channels, int height, int width, const torch::Device& device) {
    torch::NoGradGuard noGrad;
    auto x = torch::zeros({1, channels, height, width}, torch::TensorOptions().device(device));
    double flops = 0;
    for (auto& layer : *net) {
        const auto y = layer.forward(x);
        if (const auto* conv = layer.ptr()->as<torch::nn::Conv2dImpl>()) {
            const auto& w = conv->weight;
            flops += convFlops(double(w.size(1)), double(w.size(0)), double(w.size(2)), double(w.size(3)),
                               double(y.size(2)), double(y.size(3)));
        } else if (const auto* linear = layer.ptr()->as<torch::nn::LinearImpl>()) {
            flops += linearFlops(double(linear->weight.size(1)), double(linear->weight.size(0))) * double(y.numel() / y.size(-1));
        }
        x = y;
    }
    return flops;
}

// Progress over every timed call of the measurement; a false from the callback cancels it.
struct CostCancelled {};
struct CostTicker {
    const Progress& progress;
    int total = 1, done = 0;
    void tick() {
        ++done;
        if (progress && !progress(double(done) / total)) throw CostCancelled{};
    }
};

// Median seconds per stage over `repeats` timed calls of `run` (after one warm-up).
std::vector<std::pair<std::string, double>> medianStages(StageClock& clock, int repeats, const std::function<void()>& run,
                                                         CostTicker& ticker) {
    run();
    std::map<std::string, std::vector<double>> samples;
    std::vector<std::string> order;
    for (int i = 0; i < repeats; ++i) {
        clock.reset();
        run();
        for (const auto& [stage, s] : clock.seconds()) {
            if (!samples.count(stage)) order.push_back(stage);
            samples[stage].push_back(s);
        }
        ticker.tick();
    }
    std::vector<std::pair<std::string, double>> out;
    for (const auto& stage : order) {
        auto& v = samples[stage];
        std::sort(v.begin(), v.end());
        out.emplace_back(stage, v[v.size() / 2]);
    }
    return out;
}

RuleCost makeRuleCost(const std::string& variant, const std::string& rule,
                      const std::vector<std::pair<std::string, double>>& seconds, int batch,
                      const std::map<std::string, double>& flops) {
    RuleCost c;
    c.variant = variant;
    c.rule = rule;
    for (const auto& [stage, s] : seconds) {
        const auto f = flops.find(stage);
        c.stages.push_back({stage, 1000 * s / batch, f == flops.end() ? 0.0 : f->second / 1e6});
        c.msPerImage += c.stages.back().msPerImage;
        c.mflopsPerImage += c.stages.back().mflopsPerImage;
    }
    return c;
}

Result<std::vector<RuleCost>> profilePatch(const PatchConfig& config, const CostOptions& o, const torch::Device& device,
                                           StageClock& clock, CostTicker& ticker) {
    std::vector<RuleCost> rules;
    const auto x = torch::rand({o.batch, config.inChannels, config.imageSize, config.imageSize}).to(device);
    const double L = double(config.grid) * config.grid, H = config.hidden, T = config.steps;
    for (const char* variant : {"dense", "select"}) {
        PatchConfig vc = config;
        vc.variant = variant;
        torch::manual_seed(0);
        PatchClassifier net(vc);
        net->to(device);
        net->eval();
        const bool select = vc.variant == "select";
        const int window = patchWindow(vc);
        auto encoder = net->encoder();
        const double encoderFlops = sequentialFlops(encoder, vc.inChannels, vc.imageSize, vc.imageSize, device);
        // The scorer's key width: the cheap pass's (select) or the features' (dense).
        double K = 0;
        {
            torch::NoGradGuard noGrad;
            K = double(net->encode(x.narrow(0, 0, 1)).size(2));
        }
        const double D = vc.featureDim, A = vc.attnHidden;
        double scoring = 0;
        if (vc.scorer == "additive") scoring = linearFlops(K, A) * L + T * (linearFlops(H, A) + 2 * L * A);
        else if (vc.scorer == "general") scoring = T * (linearFlops(H, K) + 2 * L * K);
        else scoring = T * 2 * L * K;  // dot, scaled dot-product
        const double recurrent = 2 * linearFlops(K, H) + T * (linearFlops(D + H, 4 * H) + linearFlops(H, 1) +
                                                               linearFlops(H, vc.classes));
        double windowFlops = 0;
        if (select) {
            auto patchNet = net->patchNet();
            windowFlops = sequentialFlops(patchNet, vc.inChannels, window, window, device);
        }
        // (ksample:K as evaluated is K sample runs on one encoding: K times the sample rule's
        // steps; it is not a single forward pass, so it is not profiled here.)
        for (const char* rule : {"soft", "argmax", "sample", "gumbel:1"}) {
            const auto parsed = parseSelectionRule(rule);
            // One hard choice reads its row; every other rule weights all L rows (L x D multiply-adds
            // per step) and, in the select variant, needs every window's patch features.
            const bool soft = parsed->rule != SelectionRule::Sample && parsed->rule != SelectionRule::Argmax;
            const double selection = soft ? T * 2 * L * D : 0.0;
            std::map<std::string, double> flops{{"encoder", encoderFlops}, {"scoring", scoring},
                                                {"selection", selection}, {"recurrent + classifier", recurrent}};
            if (select) flops["patch network"] = soft ? L * windowFlops : T * windowFlops;
            Rng rng(1);
            torch::NoGradGuard noGrad;
            net->setStageClock(&clock);
            const auto seconds = medianStages(clock, o.repeats, [&] { net->forward(x, *parsed, rng); }, ticker);
            net->setStageClock(nullptr);
            RuleCost c = makeRuleCost(variant, rule, seconds, o.batch, flops);
            c.allFeaturesFirst = !select || soft;
            const bool weighted = parsed->rule == SelectionRule::Soft;
            if (!select)
                c.note = weighted ? "Soft attention weights every cell: all features are needed"
                                  : "Selection saved nothing: every cell's features were computed before it";
            else if (soft)
                c.note = std::string(weighted ? "Soft attention weights every cell" : "This rule forms its context from weights over every cell") +
                         ", so every window goes through the patch network: no saving";
            else
                c.note = "Only the chosen window went through the patch network";
            rules.push_back(c);
        }
    }
    // What the select variant's hard rules saved against the dense ones, measured.
    const size_t perVariant = rules.size() / 2;
    for (size_t i = 0; i < perVariant; ++i) {
        const auto& dense = rules[i];
        auto& chosen = rules[perVariant + i];
        if (chosen.allFeaturesFirst) continue;
        chosen.note += ": " + std::to_string(int(std::lround(100 * chosen.mflopsPerImage / dense.mflopsPerImage))) +
                       "% of the dense variant's FLOPs and " +
                       std::to_string(int(std::lround(100 * chosen.msPerImage / dense.msPerImage))) + "% of its time";
    }
    return rules;
}

std::vector<RuleCost> profileRam(const RamConfig& config, const CostOptions& o, const torch::Device& device,
                                 StageClock& clock, CostTicker& ticker) {
    std::vector<RuleCost> rules;
    torch::manual_seed(0);
    RamNetwork net(config);
    net->to(device);
    net->eval();
    const auto x = torch::rand({o.batch, config.inChannels, config.imageSize, config.imageSize}).to(device);
    const double T = config.glimpses, F = double(config.scales) * config.inChannels * config.glimpseSize * config.glimpseSize;
    const double gh = config.glimpseHidden, gd = config.glimpseDim, h = config.hidden;
    const std::map<std::string, double> flops{
        {"glimpse sensor", 0.0},  // integer lookups in the summed-area table
        {"glimpse network", T * (linearFlops(F, gh) + linearFlops(2, gh) + 2 * linearFlops(gh, gd))},
        {"recurrent core", config.core == "lstm" ? T * linearFlops(gd + h, 4 * h) : T * linearFlops(gd, h) + (T - 1) * linearFlops(h, h)},
        {"policy + baseline", (T - 1) * linearFlops(h, 2) + T * linearFlops(h, 1)},
        {"classifier", linearFlops(h, config.classes)}};
    for (auto [name, rule] : {std::pair{"mean", RamRule::Mean}, std::pair{"sample", RamRule::Sample},
                              std::pair{"random", RamRule::Random}}) {
        Rng rng(1);
        torch::NoGradGuard noGrad;
        net->setStageClock(&clock);
        const auto seconds = medianStages(clock, o.repeats, [&, rule = rule] { net->forward(x, rule, rng); }, ticker);
        net->setStageClock(nullptr);
        RuleCost c = makeRuleCost("ram", name, seconds, o.batch, flops);
        c.note = "No features before selection: one pass over the image builds the summed-area table, then the "
                 "network sees only the glimpses, " + std::to_string(int(T)) + " x " + std::to_string(int(F)) +
                 " values against " + std::to_string(config.imageSize * config.imageSize * config.inChannels) + " pixels";
        rules.push_back(c);
    }
    return rules;
}

std::vector<RuleCost> profileCaption(const CaptionConfig& config, const CostOptions& o, const torch::Device& device,
                                     StageClock& clock, CostTicker& ticker) {
    std::vector<RuleCost> rules;
    // The checkpoint's own weights: how many words a caption takes depends on them.
    CaptionNetwork net(config);
    net->to(device);
    if (auto loaded = loadCheckpointWeights(*net, nullptr, o.model, &device); !loaded) TORCH_CHECK(false, loaded.error());
    net->eval();
    const auto x = torch::rand({o.batch, config.inChannels, config.imageSize, config.imageSize}).to(device);
    auto encoder = net->encoder();
    const double encoderFlops = sequentialFlops(encoder, config.inChannels, config.imageSize, config.imageSize, device);
    const double L = double(config.grid) * config.grid, D = config.featureDim, H = config.hidden, E = config.embed,
                 A = config.attnHidden, V = double(config.vocabulary.size());
    for (const char* name : {"soft", "argmax", "sample"}) {
        SelectionOptions rule = *parseSelectionRule(name);
        Rng rng(1);
        torch::NoGradGuard noGrad;
        double T = 0;
        net->setStageClock(&clock);
        const auto seconds = medianStages(
            clock, o.repeats,
            [&] {
                const auto d = net->decode(net->encode(x), rule, rng);
                T = double(d.tokens.size(1));
            },
            ticker);
        net->setStageClock(nullptr);
        const bool soft = rule.rule == SelectionRule::Soft;
        const std::map<std::string, double> flops{
            {"encoder", encoderFlops},
            // The keys' projection once per image, the query's and the scores' at every word.
            {"scoring", L * linearFlops(D, A) + T * (linearFlops(H, A) + L * linearFlops(A, 1))},
            {"selection", soft ? T * 2 * L * D : 0.0},
            {"decoder", 2 * linearFlops(D, H) + T * (linearFlops(H, 1) + linearFlops(E + D, 4 * H) + linearFlops(H, 4 * H) +
                                                     linearFlops(H, E) + linearFlops(D, E) + linearFlops(E, V))}};
        RuleCost c = makeRuleCost("caption", name, seconds, o.batch, flops);
        c.allFeaturesFirst = true;
        c.note = std::string("The encoder computes every annotation before the first word; ") +
                 (soft ? "soft attention then weights all of them at every word, so selection saves nothing"
                       : "selection saves only the weighted sum over annotations at each word") +
                 " (the decoder ran " + std::to_string(int(T)) + " word steps on random images)";
        rules.push_back(c);
    }
    return rules;
}

}  // namespace

Result<CostReport> profileCost(const CostOptions& o, const Progress& progress) {
    if (o.batch < 1 || o.repeats < 1) return Error{"cost: batch and repeats must be positive"};
    if (isScriptImport(o.model))
        return Error{"cost accounting counts the layers of a Saccade checkpoint from its config; '" + o.model +
                     "' has no Saccade sidecar (an imported model's stages are not known)"};
    auto info = readCheckpointInfo(o.model);
    if (!info) return Error{info.error()};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    CostReport r;
    r.modelType = info->modelType;
    r.device = device->str();
    r.batch = o.batch;
    r.threads = at::get_num_threads();
    StageClock clock([dev = *device] {
        if (dev.is_cuda()) torch::cuda::synchronize();
    });
    try {
        if (info->modelType == "patch") {
            auto config = patchConfigFromJson(info->configJson);
            if (!config) return Error{"checkpoint '" + o.model + "': " + config.error()};
            CostTicker ticker{progress, 8 * o.repeats};  // 2 variants x 4 rules
            auto rules = profilePatch(*config, o, *device, clock, ticker);
            if (!rules) return Error{rules.error()};
            r.rules = *rules;
        } else if (info->modelType == "ram") {
            auto config = ramConfigFromJson(info->configJson);
            if (!config) return Error{"checkpoint '" + o.model + "': " + config.error()};
            CostTicker ticker{progress, 3 * o.repeats};
            r.rules = profileRam(*config, o, *device, clock, ticker);
        } else if (info->modelType == "caption") {
            auto config = captionConfigFromJson(info->configJson);
            if (!config) return Error{"checkpoint '" + o.model + "': " + config.error()};
            CostTicker ticker{progress, 3 * o.repeats};
            r.rules = profileCaption(*config, o, *device, clock, ticker);
        } else {
            return Error{info->modelType == "seq" ? "cost: '" + o.model + "' holds a sequence model; the cost view measures "
                                                    "image models (bench seq times sequence models)"
                                                  : "cost: unknown model type '" + info->modelType + "'"};
        }
    } catch (const c10::Error& e) {
        return Error{std::string("cost: ") + e.what_without_backtrace()};
    } catch (const CostCancelled&) {
        return Error{"the cost measurement was cancelled"};
    }
    return r;
}

std::string costReportToJson(const CostReport& r, int indent) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& c : r.rules) {
        nlohmann::json stages = nlohmann::json::array();
        for (const auto& s : c.stages)
            stages.push_back({{"stage", s.stage}, {"ms_per_image", s.msPerImage}, {"mflops_per_image", s.mflopsPerImage}});
        rules.push_back({{"variant", c.variant}, {"rule", c.rule}, {"stages", stages}, {"ms_per_image", c.msPerImage},
                         {"mflops_per_image", c.mflopsPerImage}, {"all_features_before_selection", c.allFeaturesFirst},
                         {"note", c.note}});
    }
    return nlohmann::json{{"schema", "saccade.cost"}, {"version", 1}, {"model_type", r.modelType}, {"device", r.device},
                          {"batch", r.batch}, {"threads", r.threads}, {"rules", rules}}
        .dump(indent);
}

}  // namespace saccade
