// The ram family's cost profile (ModelFamily::cost): per stage of its forward pass, the measured
// time per image and the FLOPs counted from its config, for each rule (models/cost_profile.h).
#include "models/ram/ram_cost.h"

#include <cmath>
#include <map>

#include <torch/torch.h>

#include "common/rng.h"
#include "models/ram/ram_network.h"
#include "models/cost_stages.h"

namespace saccade {

Result<std::vector<RuleCost>> ramCost(const std::string& configJson, CostRun& run) {
    auto loaded = ramConfigFromJson(configJson);
    if (!loaded) return Error{loaded.error()};
    const RamConfig& config = *loaded;
    const CostOptions& o = run.options;
    const torch::Device& device = run.device;
    StageClock& clock = run.clock;
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
        const auto seconds = run.medianStages([&, rule = rule] { net->forward(x, rule, rng); });
        net->setStageClock(nullptr);
        RuleCost c = makeRuleCost("ram", name, seconds, o.batch, flops);
        c.note = "No features before selection: one pass over the image builds the summed-area table, then the "
                 "network sees only the glimpses, " + std::to_string(int(T)) + " x " + std::to_string(int(F)) +
                 " values against " + std::to_string(config.imageSize * config.imageSize * config.inChannels) + " pixels";
        rules.push_back(c);
    }
    return rules;
}

}  // namespace saccade
