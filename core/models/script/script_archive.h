#pragma once
// Opening an imported TorchScript file, shared by the two kinds of import (docs/model-contract.md):
// the classifier (ScriptModel: forward returns logits and attention) and the captioner
// (ScriptCaptioner: caption(image, max_len) returns tokens and attention). Reading the archive,
// the settings with the user's overrides over them, the input shapes a probe tries, the
// normalisation tensors, and a model's own error message. Engine header.

#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <torch/script.h>

#include "common/result.h"
#include "models/input_overrides.h"
#include "models/script/script_settings.h"

namespace saccade {

/// A TorchScript file, loaded (eval mode) on its device, with what came with it.
struct ScriptArchive {
    std::string path;
    torch::jit::Module module;
    torch::Device device{torch::kCPU};
    std::string bytes;      ///< the file's bytes (its CRC names the weights)
    std::string extraJson;  ///< the text of saccade.json; "" when absent
};

/// Loads `path` onto `device` ("auto", "cpu", "cuda:N"). Errors: missing, a folder, not a zip
/// archive, not TorchScript; each one line naming the file.
Result<ScriptArchive> openScriptArchive(const std::string& path, const std::string& device);

/// "'PATH' is not a TorchScript model, and no Saccade sidecar '...' lies beside it": the opening
/// of errors that say the file is not a model at all.
std::string notScriptModelText(const std::string& path);

/// The settings with the user's overrides over them, checked together: the centre crop sets the
/// input size (no probing), must be square and agree with a declared input_size, and may not be
/// larger than the resize.
Result<ScriptSettings> effectiveSettings(ScriptSettings settings, const InputOverrides& input);

/// The input shapes a probe tries, as (channels, side): the declared size, or each size of
/// kScriptProbeSizes, with the channel counts the settings allow.
std::vector<std::pair<int, int>> probeShapes(const ScriptSettings& settings);

/// The probe both imports run: each shape of probeShapes(settings) in turn, `mean` and `std` set
/// for its channels, `tryShape` called on a grey image of that shape, until one succeeds; its
/// (channels, side) is returned. A call that ran but broke the contract is the answer at once;
/// one that raised (`raised` true after it) may want another size, so the next shape is tried.
Result<std::pair<int, int>> probeInputShape(const ScriptSettings& settings, const std::string& path,
                                            const torch::Device& device, torch::Tensor& mean, torch::Tensor& std,
                                            const std::function<Result<Unit>(const torch::Tensor& grey)>& tryShape,
                                            const bool& raised);

/// The settings' mean and std as [1, channels, 1, 1] tensors on `device` (one value applies to
/// every channel); undefined tensors when the settings have no normalisation.
std::pair<torch::Tensor, torch::Tensor> normalisationTensors(const ScriptSettings& settings, int channels,
                                                             const torch::Device& device);

/// One call of an imported model's method on images in [0, 1], normalised by `mean` and `std`
/// where they are defined, with `args` after the images, under NoGradGuard. With `seeded`, the
/// method seeds the process-wide CPU generator (torch.manual_seed): its state is put back
/// afterwards, so the call leaves other users of that generator as they were. An error is
/// "model 'PATH': METHOD failed: " and the model's own message; `raised` is then true.
Result<c10::IValue> callScriptMethod(torch::jit::Module& module, const std::string& path, const std::string& method,
                                     const torch::Tensor& images, const torch::Tensor& mean, const torch::Tensor& std,
                                     const std::vector<c10::IValue>& args, bool seeded, bool& raised);

/// What a model's method raised, in its own words: the last line of the interpreter's text
/// ("ValueError: this model wants 7 channels"), else the first line of the message; control
/// characters and direction overrides escaped (escapeDisplayText), at most 500 bytes.
std::string modelsOwnMessage(const std::exception& e);

}  // namespace saccade
