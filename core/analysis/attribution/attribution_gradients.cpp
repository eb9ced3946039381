#include "analysis/attribution/attribution_gradients.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "analysis/attribution/path_quadrature.h"
#include "common/rng.h"

namespace saccade {

namespace {

// Images per forward: 64 integrated-gradient steps and both ends go in one batch.
constexpr std::int64_t kAttributionChunk = 128;

torch::Tensor attributionToCpuDouble(const torch::Tensor& t) { return t.detach().to(torch::kCPU, torch::kDouble); }

}  // namespace

void requireAnswerGraph(const torch::Tensor& score) {
    TORCH_CHECK(score.requires_grad(), "the model's answer is not on autograd's graph (its forward detaches its "
                                       "input or runs under no_grad), so it has no gradient to attribute");
}

torch::Tensor targetLogits(GradientForward& f, const torch::Tensor& images, const std::string& rule, int target) {
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> parts;
    for (std::int64_t first = 0; first < images.size(0); first += kAttributionChunk) {
        const auto chunk = images.slice(0, first, std::min(images.size(0), first + kAttributionChunk));
        parts.push_back(f.logits(chunk, rule).select(/*dim=*/1, target));
    }
    return torch::cat(parts);
}

torch::Tensor inputGradients(GradientForward& f, const torch::Tensor& images, const std::string& rule, int target) {
    torch::AutoGradMode enable(true);
    std::vector<torch::Tensor> parts;
    for (std::int64_t first = 0; first < images.size(0); first += kAttributionChunk) {
        auto chunk = images.slice(0, first, std::min(images.size(0), first + kAttributionChunk)).detach().requires_grad_(true);
        // The images are independent rows: the gradient of the summed logits is each row's own.
        const auto score = f.logits(chunk, rule).select(/*dim=*/1, target).sum();
        requireAnswerGraph(score);
        const auto g = torch::autograd::grad({score}, {chunk}, {}, /*retain_graph=*/false, /*create_graph=*/false,
                                             /*allow_unused=*/true)[0];
        TORCH_CHECK(g.defined(), "the model's answer does not reach its pixels through autograd (its forward "
                                 "detaches them), so it has no input gradient");
        parts.push_back(g);
    }
    return torch::cat(parts);
}

GradientAttribution plainGradient(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target,
                                  bool timesInput) {
    GradientAttribution out;
    const auto g = inputGradients(f, x, rule, target)[0];
    out.pixels = attributionToCpuDouble(timesInput ? g * x[0] : g);
    out.forwards = 1;
    return out;
}

namespace {

// The points of the path and their weights under `quadrature` with `steps` intervals or nodes.
std::pair<torch::Tensor, torch::Tensor> igPoints(int steps, const std::string& quadrature) {
    const auto q = pathQuadrature(steps, quadrature);
    return {torch::tensor(q.alphas, torch::kDouble), torch::tensor(q.weights, torch::kDouble)};
}

// sum_p w_p dF/dx at x_p = baseline + alphas[p] (x - baseline), [1, C, S, S], through the model's
// affine first layer z = A x + c (gradient_forward.h): z_p = z_b + alphas[p] (z_x - z_b), so the
// layer runs on the two ends, the rest differentiates with respect to z_b, which every point
// shares (sum_p w_p dF/dz_p, in chunks), and A^T pulls that sum back once.
torch::Tensor weightedGradientThroughAffineInput(GradientForward& f, const torch::Tensor& x,
                                                 const torch::Tensor& baseline, const torch::Tensor& alphas,
                                                 const torch::Tensor& weights, const std::string& rule, int target) {
    const auto split = f.affineInputSplit();
    torch::Tensor start, direction;
    {
        torch::NoGradGuard noGrad;
        const auto ends = split.affine(torch::cat({baseline, x}));
        start = ends.slice(/*dim=*/0, 0, 1).clone();
        direction = ends.slice(/*dim=*/0, 1, 2) - start;
    }
    torch::AutoGradMode enable(true);
    start.requires_grad_(true);
    torch::Tensor atOutput;  // sum_p w_p dF/dz_p
    for (std::int64_t first = 0; first < alphas.size(0); first += kAttributionChunk) {
        const auto last = std::min(alphas.size(0), first + kAttributionChunk);
        const auto logits = split.pathLogits(start, direction, alphas.slice(0, first, last), rule);
        const auto score = (logits.select(/*dim=*/1, target) * weights.slice(0, first, last)).sum();
        requireAnswerGraph(score);
        const auto g = torch::autograd::grad({score}, {start}, {}, /*retain_graph=*/false, /*create_graph=*/false,
                                             /*allow_unused=*/true)[0];
        TORCH_CHECK(g.defined(), "the model's answer does not reach its first layer through autograd");
        atOutput = atOutput.defined() ? atOutput + g : g;
    }
    // Affine: A^T g is the same at any point; the baseline serves.
    const auto point = baseline.detach().clone().requires_grad_(true);
    return torch::autograd::grad({split.affine(point)}, {point}, {atOutput})[0];
}

}  // namespace

GradientAttribution integratedGradients(GradientForward& f, const torch::Tensor& x, const torch::Tensor& baseline,
                                        const std::string& rule, int target, int steps, const std::string& quadrature) {
    const auto [alphaValues, weights] = igPoints(steps, quadrature);
    const auto alphas = alphaValues.to(x.options());
    const auto points = alphas.size(0);
    const auto delta = x - baseline;
    torch::Tensor meanGrad;  // [C, S, S]
    if (f.hasAffineInputSplit()) {
        meanGrad = attributionToCpuDouble(
            weightedGradientThroughAffineInput(f, x, baseline, alphas, weights.to(x.options()), rule, target)[0]);
    } else {
        const auto path = baseline + alphas.view({-1, 1, 1, 1}) * delta;  // [P, C, S, S]
        const auto grads = inputGradients(f, path, rule, target);
        meanGrad = (attributionToCpuDouble(grads) * weights.view({-1, 1, 1, 1})).sum(/*dim=*/0);
    }
    GradientAttribution out;
    out.pixels = attributionToCpuDouble(delta[0]) * meanGrad;
    const auto ends = attributionToCpuDouble(targetLogits(f, torch::cat({x, baseline}), rule, target));
    out.fInput = ends[0].item<double>();
    out.fBaseline = ends[1].item<double>();
    out.forwards = points + 2;
    return out;
}

GradientAttribution smoothGrad(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target,
                               int samples, double sigma, std::uint64_t seed) {
    Rng rng(seed);
    // Drawn on the CPU so a seed gives the same copies on every device.
    const auto noise = rng.normal({samples, x.size(1), x.size(2), x.size(3)}, torch::kCPU).to(x.device());
    const auto noisy = x.expand({samples, -1, -1, -1}) + sigma * noise;
    GradientAttribution out;
    out.pixels = attributionToCpuDouble(inputGradients(f, noisy, rule, target)).mean(/*dim=*/0);
    out.forwards = samples;
    return out;
}

GradientAttribution gradCam(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target) {
    torch::AutoGradMode enable(true);
    const auto forward = f.gridForward(x, rule);
    TORCH_CHECK(forward.grid.defined() && forward.grid.dim() == 4, "the model gave no feature grid");
    const auto score = forward.logits.select(/*dim=*/1, target).sum();
    requireAnswerGraph(score);
    const auto g = torch::autograd::grad({score}, {forward.grid})[0];  // [1, D, g, g]
    const auto weights = g.mean({2, 3}, /*keepdim=*/true);
    GradientAttribution out;
    out.grid = attributionToCpuDouble((weights * forward.grid).sum(/*dim=*/1)[0]);
    out.forwards = 1;
    return out;
}

GradientAttribution gradientRollout(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target) {
    torch::AutoGradMode enable(true);
    const auto g = f.attentionGraph(x, rule);
    TORCH_CHECK(!g.attentions.empty(), "the model gave no attention graph");
    const auto score = g.logits.select(/*dim=*/1, target).sum();
    requireAnswerGraph(score);
    const auto grads = torch::autograd::grad({score}, g.attentions, {}, /*retain_graph=*/false, /*create_graph=*/false,
                                             /*allow_unused=*/true);
    const auto tokens = g.attentions.front().size(-1);
    auto relevance = torch::eye(tokens, torch::TensorOptions().dtype(torch::kDouble));
    for (std::size_t l = 0; l < g.attentions.size(); ++l) {
        if (!grads[l].defined()) continue;  // a layer the answer does not read (after the read-out's last use)
        const auto a = g.attentions[l][0].detach().to(torch::kCPU, torch::kDouble);
        const auto d = grads[l][0].to(torch::kCPU, torch::kDouble);
        relevance = relevance + torch::matmul((d * a).clamp_min(0).mean(/*dim=*/0), relevance);
    }
    const auto row = relevance[g.readout].slice(/*dim=*/0, g.prefix, g.prefix + std::int64_t(g.gridRows) * g.gridCols);
    GradientAttribution out;
    out.grid = row.reshape({g.gridRows, g.gridCols}).contiguous();
    out.forwards = 1;
    return out;
}

}  // namespace saccade
