#pragma once
// The gradient methods of analysis/attribution.h on tensors: what attribute() runs for every
// method but occlusion. Engine header: includes LibTorch.

#include <cstdint>
#include <string>

#include <torch/types.h>

#include "models/gradient_forward.h"

namespace saccade {

/// Before a gradient of `score` is taken: an Error (c10) in words when the model's answer is not
/// on autograd's graph at all (its forward detaches everything or runs under no_grad), where
/// LibTorch would say "element 0 of tensors does not require grad and does not have a grad_fn".
void requireAnswerGraph(const torch::Tensor& score);

/// What a gradient method gives: the signed attribution per channel and pixel [C, S, S] (CPU,
/// float64), or Grad-CAM's map over the feature grid [g, g]; integrated gradients' end values.
struct GradientAttribution {
    torch::Tensor pixels;  ///< [C, S, S]; undefined for Grad-CAM
    torch::Tensor grid;    ///< [rows, cols]: Grad-CAM's map before the ReLU, or gradient-weighted rollout
    double fInput = 0, fBaseline = 0;
    std::int64_t forwards = 0;
};

/// The target's logit for each image [B] (no graph kept), in chunks.
torch::Tensor targetLogits(GradientForward& f, const torch::Tensor& images, const std::string& rule, int target);

/// d logit[target] / d images for every image [B, C, S, S], in chunks of batched forwards.
torch::Tensor inputGradients(GradientForward& f, const torch::Tensor& images, const std::string& rule, int target);

/// gradient, gradient-x-input: x [1, C, S, S].
GradientAttribution plainGradient(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target,
                                  bool timesInput);

/// Integrated gradients from `baseline` to x (both [1, C, S, S]) with `steps` intervals under the
/// trapezoid rule (steps + 1 points), the midpoint rule or Gauss-Legendre (steps points), the
/// points batched. Where the model splits its forward after an affine first layer
/// (f.hasAffineInputSplit()), that layer runs on x and the baseline only and its backward once.
GradientAttribution integratedGradients(GradientForward& f, const torch::Tensor& x, const torch::Tensor& baseline,
                                        const std::string& rule, int target, int steps, const std::string& quadrature);

/// Gradient-weighted attention rollout (Chefer et al. 2021, "Generic Attention-model
/// Explainability"): R = I, then per layer R += mean over heads of ReLU(dA * A) R, with dA the
/// target logit's gradient with respect to the layer's attention A; the read-out token's row over
/// the patch grid, as `grid` [rows, cols] (non-negative). Needs f.hasAttentionGraph().
GradientAttribution gradientRollout(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target);

/// SmoothGrad: the mean gradient over `samples` noisy copies of x (noise N(0, sigma^2), from `seed`).
GradientAttribution smoothGrad(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target,
                               int samples, double sigma, std::uint64_t seed);

/// Grad-CAM on the model's feature grid (f.hasFeatureGrid() must hold).
GradientAttribution gradCam(GradientForward& f, const torch::Tensor& x, const std::string& rule, int target);

}  // namespace saccade
