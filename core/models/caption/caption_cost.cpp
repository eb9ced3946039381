// The caption family's cost profile (ModelFamily::cost): per stage of its forward pass, the measured
// time per image and the FLOPs counted from its config, for each rule (models/cost_profile.h).
#include "models/caption/caption_cost.h"

#include <cmath>
#include <map>

#include <torch/torch.h>

#include "attention/selection.h"
#include "common/rng.h"
#include "io/checkpoint.h"
#include "models/caption/caption_network.h"
#include "models/cost_stages.h"

namespace saccade {

Result<std::vector<RuleCost>> captionCost(const std::string& configJson, CostRun& run) {
    auto loaded = captionConfigFromJson(configJson);
    if (!loaded) return Error{loaded.error()};
    const CaptionConfig& config = *loaded;
    const CostOptions& o = run.options;
    const torch::Device& device = run.device;
    StageClock& clock = run.clock;
    std::vector<RuleCost> rules;
    // The checkpoint's own weights: how many words a caption takes depends on them.
    CaptionNetwork net(config);
    net->to(device);
    if (auto weights = loadCheckpointWeights(*net, nullptr, o.model, &device); !weights) TORCH_CHECK(false, weights.error());
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
        const auto seconds = run.medianStages([&] {
                const auto d = net->decode(net->encode(x), rule, rng);
                T = double(d.tokens.size(1));
            });
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

}  // namespace saccade
