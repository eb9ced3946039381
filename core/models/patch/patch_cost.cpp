// The patch family's cost profile (ModelFamily::cost): per stage of its forward pass, the measured
// time per image and the FLOPs counted from its config, for each rule (models/cost_profile.h).
#include "models/patch/patch_cost.h"

#include <cmath>
#include <map>

#include <torch/torch.h>

#include "attention/selection.h"
#include "common/rng.h"
#include "models/patch/patch_classifier.h"
#include "models/cost_stages.h"

namespace saccade {

Result<std::vector<RuleCost>> patchCost(const std::string& configJson, CostRun& run) {
    auto loaded = patchConfigFromJson(configJson);
    if (!loaded) return Error{loaded.error()};
    const PatchConfig& config = *loaded;
    const CostOptions& o = run.options;
    const torch::Device& device = run.device;
    StageClock& clock = run.clock;
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
            const auto seconds = run.medianStages([&] { net->forward(x, *parsed, rng); });
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

}  // namespace saccade
