#include "attention/engine_demo.h"

#include <torch/torch.h>

#include "attention/scorer.h"
#include "attention/selection.h"
#include "common/device.h"
#include "common/torch_errors.h"

namespace saccade {

Result<Trace> runEngineDemo(const EngineDemoOptions& o) {
    if (o.grid < 1 || o.grid > 64) return Error{"grid must be between 1 and 64 cells a side"};
    if (o.steps < 1 || o.steps > 1000) return Error{"steps must be between 1 and 1000"};
    if (o.featureDim < 1 || o.featureDim > 4096) return Error{"feature dimension must be 1..4096"};
    if (o.cellPixels < 1) return Error{"cell size must be at least one pixel"};
    auto kind = parseScorerKind(o.scorer);
    if (!kind) return Error{kind.error()};
    auto rule = parseSelectionRule(o.rule);
    if (!rule) return Error{rule.error()};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    const int64_t L = static_cast<int64_t>(o.grid) * o.grid;
    if (rule->rule == SelectionRule::TopK && rule->k > L)
        return Error{"topk:" + std::to_string(rule->k) + " asks for more cells than the grid has"};

    try {
        torch::NoGradGuard noGrad;
        Rng rng(o.seed);
        // Weights and features come from one seeded CPU stream, so every device sees the same
        // problem; uniforms are mapped to normals with the Box-Muller transform.
        auto normal = [&](at::IntArrayRef shape) {
            const auto u1 = rng.uniform(shape, torch::kCPU).clamp_min(1e-7);
            const auto u2 = rng.uniform(shape, torch::kCPU);
            return (torch::sqrt(-2.0 * torch::log(u1)) * torch::cos(2.0 * M_PI * u2)).to(*device);
        };
        ScorerOptions so;
        so.kind = *kind;
        so.queryDim = o.featureDim;
        so.keyDim = o.featureDim;
        so.hiddenDim = 32;
        Scorer scorer(so);
        for (auto& p : scorer->parameters()) p.copy_(normal(p.sizes()) * 0.3);
        scorer->to(*device);

        const auto keys = normal({1, L, o.featureDim});
        const auto targets = (rng.uniform({o.steps}, torch::kCPU) * static_cast<double>(L))
                                 .to(torch::kLong)
                                 .clamp_max(L - 1);

        Trace trace;
        trace.modelId = "engine-demo/" + scorerKindName(*kind);
        trace.imageId = "synthetic-grid/" + std::to_string(o.seed);
        trace.rule = selectionRuleSpec(*rule);
        trace.seed = o.seed;
        trace.device = device->str();
        trace.imageWidth = trace.imageHeight = o.grid * o.cellPixels;
        GroundTruth truth;
        for (int t = 0; t < o.steps; ++t) {
            const auto target = targets[t].item<int64_t>();
            const auto query = keys.select(/*dim=*/1, target) + normal({1, o.featureDim}) * o.queryNoise;
            const auto scores = scorer->forward(query, keys);
            const auto s = select(scores, keys, *rule, rng);

            TraceStep step;
            const auto probs = s.probs.to(torch::kCPU, torch::kFloat).contiguous();
            step.grid = GridDistribution{o.grid, o.grid,
                                         std::vector<float>(probs.data_ptr<float>(),
                                                            probs.data_ptr<float>() + L)};
            const auto chosen = s.indices.to(torch::kCPU);
            for (int64_t k = 0; k < chosen.size(1); ++k)
                step.chosenCells.push_back(static_cast<int>(chosen[0][k].item<int64_t>()));
            step.logProb = s.logProb.item<double>();
            step.entropy = s.entropy.item<double>();
            trace.steps.push_back(std::move(step));
            const double cx = static_cast<double>(target % o.grid) * o.cellPixels;
            const double cy = static_cast<double>(target / o.grid) * o.cellPixels;
            truth.boxes.push_back({cx, cy, double(o.cellPixels), double(o.cellPixels)});
        }
        trace.groundTruth = truth;
        return validateTrace(trace);
    } catch (const c10::Error& e) {
        return Error{std::string("attention engine failed: ") + torchErrorLine(e)};
    }
}

}  // namespace saccade
