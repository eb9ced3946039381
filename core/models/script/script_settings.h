#pragma once
// The optional settings of an imported TorchScript model (docs/model-contract.md), read from its
// module attributes (torch.jit.script keeps them) or from the extra file `saccade.json` saved with
// torch.jit.save(..., _extra_files=...) (what a traced module can carry). An attribute wins over
// the file. Each malformed setting is a one-line Error naming it. Engine header.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/script.h>

#include "common/result.h"

namespace saccade {

/// Sides the load probe tries, with 1 and 3 channels, when the model declares no input_size or
/// center_crop: the sizes of Saccade's datasets, CIFAR's 32 and ImageNet's 224.
inline constexpr int kScriptProbeSizes[] = {28, 32, 60, 64, 96, 100, 224};

struct ScriptSettings {
    std::vector<std::string> classNames;   ///< class_names
    int inputSize = 0, inputChannels = 0;  ///< input_size: S, [S, S] or [C, S, S]; 0 = not given
    std::vector<float> mean, std;          ///< per channel (or one value), applied to [0, 1] images
    std::optional<std::pair<int, int>> patchGrid;  ///< patch_grid: S or [rows, cols]
    std::string dataset;                   ///< a Saccade dataset the model was trained on
    int resize = 0;                        ///< resize: the shorter side; 0 = not given
    std::optional<std::pair<int, int>> centerCrop;  ///< center_crop: S or [H, W]
    int prefixTokens = -1;                 ///< prefix_tokens: CLS, registers, distillation; -1 = inferred
    int readoutToken = 0;                  ///< readout_token: which prefix token reads out (0 = the first)
};

/// Reads the settings; `extraJson` is the text of saccade.json ("" when absent).
Result<ScriptSettings> readScriptSettings(const torch::jit::Module& module, const std::string& extraJson);

}  // namespace saccade
