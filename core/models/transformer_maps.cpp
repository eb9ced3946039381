#include "models/transformer_maps.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <torch/torch.h>

#include "common/parse.h"

namespace saccade {

namespace {

int exactSquareRoot(std::int64_t n) {
    if (n <= 0) return 0;
    const auto r = static_cast<std::int64_t>(std::llround(std::sqrt(double(n))));
    return r * r == n ? int(r) : 0;
}

// The query rows' weights over the patch tokens, renormalised: [layers, rows * cols] from [layers, tokens].
torch::Tensor rowsOverPatches(const torch::Tensor& rows, const TokenGrid& grid) {
    auto patches = rows.narrow(1, grid.prefix, grid.rows * grid.cols);
    auto total = patches.sum(1, true).clamp_min(1e-12);
    return patches / total;
}

// The query token's row of each [tokens, tokens] matrix, in float64: `a` is [..., tokens, tokens].
// Only the read-out row is converted where there is one (a ViT-B/16's weights are 1.4 million numbers).
torch::Tensor queryRows(const torch::Tensor& a, const TokenGrid& grid) {
    return grid.prefix > 0 ? a.select(-2, grid.readout).to(torch::kFloat64) : a.to(torch::kFloat64).mean(-2);
}

}  // namespace

Result<TokenGrid> tokenGrid(std::int64_t tokens, std::optional<std::pair<int, int>> given, int prefix, int readout) {
    if (prefix >= 0 && tokens <= prefix)
        return Error{"prefix_tokens " + std::to_string(prefix) + " leaves no patches of the " + std::to_string(tokens) + " tokens"};
    if (readout >= std::max(prefix, 1))
        return Error{"readout_token " + std::to_string(readout) + " is not one of the prefix tokens"};
    const std::vector<int> prefixes = prefix >= 0 ? std::vector<int>{prefix} : std::vector<int>{1, 0};
    for (int p : prefixes) {
        const std::int64_t patches = tokens - p;
        if (given) {
            const auto [r, c] = *given;
            if (r < 1 || c < 1) return Error{"the patch grid must be at least 1x1"};
            if (std::int64_t(r) * c == patches) return TokenGrid{r, c, p, p > 0 ? readout : 0};
        } else if (const int side = exactSquareRoot(patches); side > 0) {
            return TokenGrid{side, side, p, p > 0 ? readout : 0};
        }
    }
    const std::string first = std::to_string(tokens) + " tokens";
    if (given) {
        const std::string grid = std::to_string(given->first) + "x" + std::to_string(given->second);
        if (prefix >= 0)
            return Error{first + " less " + std::to_string(prefix) + " prefix tokens do not fit a " + grid + " patch grid"};
        return Error{first + " do not fit a " + grid + " patch grid (" + std::to_string(given->first * given->second) +
                     " patches, or one more with a CLS token); declare prefix_tokens for registers"};
    }
    if (prefix >= 0)
        return Error{first + " less " + std::to_string(prefix) + " prefix tokens are not a square grid of patches: "
                     "give the grid as the attribute patch_grid = [rows, cols]"};
    return Error{first + " are neither a square grid of patches nor one plus a square (a CLS token): declare "
                 "prefix_tokens (CLS plus registers) or the grid as the attribute patch_grid = [rows, cols]"};
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
    torch::Tensor maps;  // attentions: [layers, heads, tokens, tokens]
    switch (rule.view) {
        case TransformerView::Attention: maps = rowsOverPatches(queryRows(attentions, grid).mean(1), grid); break;
        case TransformerView::Head: maps = rowsOverPatches(queryRows(attentions.select(1, rule.head), grid), grid); break;
        case TransformerView::Rollout: {
            const auto a = attentions.to(torch::kFloat64);
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
            maps = rowsOverPatches(queryRows(torch::stack(perLayer), grid), grid);
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
