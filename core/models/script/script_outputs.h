#pragma once
// What an imported TorchScript model's forward must return (docs/model-contract.md), read and
// checked: a Dict[str, Tensor] with `logits` and one of the three forms of attention. Every
// failure is a one-line Error naming the method, the key and the exact problem. Engine header.

#include <cstdint>
#include <string>

#include <ATen/core/ivalue.h>
#include <torch/types.h>

#include "common/atomic_file.h"  // Unit
#include "common/result.h"

namespace saccade {

/// Probability rows must sum to 1 within this (the contract states it).
inline constexpr double kScriptSumTolerance = 1e-3;

enum class ScriptForm { Grid, Glimpses, Transformer };

/// The outputs of one call on a batch of N images, checked, on the module's device, float32.
struct ScriptOutputs {
    ScriptForm form = ScriptForm::Grid;
    torch::Tensor logits;  ///< [N, T, K]; T = 1 when the model gave [N, K]
    bool perStepLogits = false;
    torch::Tensor attention;     ///< Grid: [N, T, h, w]
    torch::Tensor chosen;        ///< Grid, optional: [N, T] int64 cells chosen (row-major)
    torch::Tensor locations;     ///< Glimpses: [N, T, 2] centres in [-1, 1] (x, y)
    torch::Tensor locationMean;  ///< Glimpses, optional: [N, T, 2] the policy's means
    torch::Tensor locationStd;   ///< Glimpses, optional: [N, T, 2] the policy's std (same units)
    torch::Tensor glimpseSize;   ///< Glimpses, optional: [N, T] side as a fraction of the image side
    torch::Tensor attentions;    ///< Transformer: [N, layers, heads, tokens, tokens]
    torch::Tensor features;      ///< optional, any form: [N, C, h, w] the convolutional grid the logits are read from (Grad-CAM)

    std::int64_t steps() const;  ///< T (Grid, Glimpses) or layers (Transformer)
    std::int64_t classes() const { return logits.size(2); }
};

/// Reads `value` (what `method` returned for a batch of `batch` images) as the contract says.
/// Floating outputs are detached, unless `keepGraph`: then `logits`, `attentions` and `features`
/// stay in autograd's graph (attribution differentiates them; the checks read detached copies).
Result<ScriptOutputs> readScriptOutputs(const c10::IValue& value, std::int64_t batch, const std::string& method,
                                        bool keepGraph = false);

/// An Error when `b` (e.g. forward_sampled's) differs in form or sizes from `a` (forward's).
Result<Unit> sameScriptShapes(const ScriptOutputs& a, const ScriptOutputs& b, const std::string& methodB);

}  // namespace saccade
