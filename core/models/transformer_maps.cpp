#include "models/transformer_maps.h"

#include <cmath>

#include <torch/torch.h>

#include "common/parse.h"

namespace saccade {

namespace {

int exactSquareRoot(std::int64_t n) {
    if (n <= 0) return 0;
    const auto r = static_cast<std::int64_t>(std::llround(std::sqrt(double(n))));
    return r * r == n ? int(r) : 0;
}

// The query token's weights over the patch tokens, renormalised: [layers, rows * cols].
torch::Tensor queryOverPatches(const torch::Tensor& perLayer, const TokenGrid& grid) {
    // perLayer: [layers, tokens, tokens]
    auto rows = grid.cls ? perLayer.select(1, 0) : perLayer.mean(1);  // [layers, tokens]
    auto patches = grid.cls ? rows.narrow(1, 1, grid.rows * grid.cols) : rows;
    auto total = patches.sum(1, true).clamp_min(1e-12);
    return patches / total;
}

}  // namespace

Result<TokenGrid> tokenGrid(std::int64_t tokens, std::optional<std::pair<int, int>> given) {
    if (given) {
        const auto [r, c] = *given;
        if (r < 1 || c < 1) return Error{"the patch grid must be at least 1x1"};
        const std::int64_t patches = std::int64_t(r) * c;
        if (tokens == patches) return TokenGrid{r, c, false};
        if (tokens == patches + 1) return TokenGrid{r, c, true};
        return Error{std::to_string(tokens) + " tokens do not fit a " + std::to_string(r) + "x" + std::to_string(c) +
                     " patch grid (" + std::to_string(patches) + " patches, or " + std::to_string(patches + 1) +
                     " with a CLS token)"};
    }
    if (const int side = exactSquareRoot(tokens - 1); side > 0) return TokenGrid{side, side, true};
    if (const int side = exactSquareRoot(tokens); side > 0) return TokenGrid{side, side, false};
    return Error{std::to_string(tokens) + " tokens are neither a square grid of patches nor one plus a square "
                 "(a CLS token): give the grid as the attribute patch_grid = [rows, cols]"};
}

Result<TransformerRule> parseTransformerRule(const std::string& rule, int heads) {
    if (rule == "attention") return TransformerRule{TransformerView::Attention, 0, "attention"};
    if (rule == "rollout") return TransformerRule{TransformerView::Rollout, 0, "rollout"};
    if (rule.rfind("head:", 0) == 0) {
        auto k = parseInteger(rule.substr(5), "head", 0, std::max(0, heads - 1));
        if (!k) return Error{"'" + rule + "': " + k.error() + " (this model has " + std::to_string(heads) + " heads)"};
        return TransformerRule{TransformerView::Head, int(*k), "head:" + std::to_string(*k)};
    }
    return Error{"'" + rule + "' is not a transformer rule (use attention, rollout or head:K)"};
}

torch::Tensor transformerMaps(const torch::Tensor& attentions, const TokenGrid& grid, const TransformerRule& rule) {
    torch::NoGradGuard noGrad;
    const auto a = attentions.to(torch::kFloat64);  // [layers, heads, tokens, tokens]
    torch::Tensor maps;
    switch (rule.view) {
        case TransformerView::Attention: maps = queryOverPatches(a.mean(1), grid); break;
        case TransformerView::Head: maps = queryOverPatches(a.select(1, rule.head), grid); break;
        case TransformerView::Rollout: {
            const auto layers = a.size(0), tokens = a.size(2);
            const auto eye = torch::eye(tokens, a.options());
            auto rolled = eye;
            std::vector<torch::Tensor> perLayer;
            for (std::int64_t l = 0; l < layers; ++l) {
                auto step = (a[l].mean(0) + eye) / 2;
                step = step / step.sum(-1, true).clamp_min(1e-12);
                rolled = step.matmul(rolled);
                perLayer.push_back(rolled);
            }
            maps = queryOverPatches(torch::stack(perLayer), grid);
            break;
        }
    }
    return maps.to(torch::kFloat32);
}

std::vector<TraceStep> transformerSteps(const torch::Tensor& attentions, const TokenGrid& grid, const TransformerRule& rule) {
    const auto maps = transformerMaps(attentions, grid, rule).to(torch::kCPU).contiguous();
    std::vector<TraceStep> steps;
    for (std::int64_t l = 0; l < maps.size(0); ++l) {
        TraceStep step;
        const auto* p = maps[l].data_ptr<float>();
        step.grid = GridDistribution{grid.rows, grid.cols, std::vector<float>(p, p + maps.size(1))};
        step.entropy = entropyNats(step.grid->probs);
        steps.push_back(std::move(step));
    }
    return steps;
}

}  // namespace saccade
