#include "models/script/script_archive.h"

#include <filesystem>
#include <mutex>
#include <regex>

#include <ATen/CPUGeneratorImpl.h>

#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "common/atomic_file.h"
#include "common/display_text.h"
#include "common/device.h"
#include "common/torch_compat.h"
#include "io/checkpoint.h"
#include "io/zip_check.h"

namespace saccade {

namespace {
constexpr std::size_t kMaxScriptBytes = std::size_t(1) << 30;

/// Why LibTorch could not load an archive. An operator this LibTorch lacks means a newer PyTorch
/// saved the file: said with both versions and what to do (measured: PyTorch 2.x's
/// scaled_dot_product_attention in a scripted nn.MultiheadAttention or timm's fused attention).
std::string loadFailure(const std::string& path, const std::string& message) {
    static const std::regex kUnknownOp(R"(Unknown builtin op: ([A-Za-z_][A-Za-z0-9_]*::[A-Za-z0-9_.]+))");
    std::smatch op;
    if (std::regex_search(message, op, kUnknownOp)) {
        std::string name = op[1].str();
        while (!name.empty() && name.back() == '.') name.pop_back();  // the sentence's full stop
        return "'" + path + "' calls " + name + ", which this Saccade's LibTorch " TORCH_VERSION
               " does not have: the file was saved by a newer PyTorch (2.x). Export it with torch.jit.trace instead "
               "of torch.jit.script, or without that operator (timm: timm.layers.set_fused_attn(False)), or open "
               "it with Saccade built on LibTorch 2.x (Debian 13)";
    }
    return notScriptModelText(path) + ": " + escapeDisplayText(firstLine(message), 500);
}
}  // namespace

std::string notScriptModelText(const std::string& path) {
    return "'" + path + "' is not a TorchScript model, and no Saccade sidecar '" + sidecarPath(path) + "' lies beside it";
}

Result<ScriptArchive> openScriptArchive(const std::string& path, const std::string& device) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Error{"model '" + path + "' does not exist"};
    if (std::filesystem::is_directory(path, ec)) return Error{"'" + path + "' is a folder; give a model file (.pt)"};
    auto dev = resolveDevice(device);
    if (!dev) return Error{dev.error()};
    auto bytes = readFile(path, kMaxScriptBytes);
    if (!bytes) return Error{"model '" + path + "': " + bytes.error()};
    const std::string notModel = notScriptModelText(path);
    if (auto zip = verifyZipArchive(*bytes, "the file"); !zip) return Error{notModel + ": " + zip.error()};
    ScriptArchive a;
    a.path = path;
    a.device = *dev;
    a.bytes = std::move(*bytes);
    torch::jit::ExtraFilesMap extra{{"saccade.json", ""}};
    compat::runTorchScriptUnfused();
    try {
        a.module = torch::jit::load(path, a.device, extra);
    } catch (const c10::Error& e) {
        return Error{loadFailure(path, e.what_without_backtrace())};
    } catch (const std::exception& e) {
        return Error{loadFailure(path, e.what())};
    }
    a.module.eval();
    a.extraJson = extra["saccade.json"];
    return a;
}

Result<ScriptSettings> effectiveSettings(ScriptSettings st, const InputOverrides& input) {
    if (!input.mean.empty()) {
        st.mean = input.mean;
        st.std = input.std;
        if (st.mean.size() > 1) st.inputChannels = int(st.mean.size());
    }
    if (input.resize) st.resize = *input.resize;
    if (input.crop) st.centerCrop = input.crop;
    if (st.centerCrop) {
        const auto [h, w] = *st.centerCrop;
        if (h != w)
            return Error{"center_crop " + std::to_string(h) + "x" + std::to_string(w) +
                         " is not square; Saccade's views take square images (non-square inputs are not supported yet)"};
        if (st.inputSize > 0 && st.inputSize != h && !input.crop)
            return Error{"center_crop " + std::to_string(h) + " differs from input_size " + std::to_string(st.inputSize)};
        st.inputSize = h;
    }
    if (st.resize > 0 && st.inputSize > st.resize)
        return Error{"the centre crop " + std::to_string(st.inputSize) + " is larger than the resize " + std::to_string(st.resize) +
                     " (the shorter side after resizing)"};
    return st;
}

std::vector<std::pair<int, int>> probeShapes(const ScriptSettings& st) {
    std::vector<std::pair<int, int>> candidates;
    const std::vector<int> sides = st.inputSize > 0 ? std::vector<int>{st.inputSize}
                                                    : std::vector<int>(std::begin(kScriptProbeSizes), std::end(kScriptProbeSizes));
    for (int side : sides)
        for (int c : {1, 3})
            if ((st.inputChannels <= 0 || st.inputChannels == c) &&
                (st.mean.size() <= 1 || std::size_t(c) == st.mean.size()))
                candidates.push_back({c, side});
    if (st.inputSize > 0 && st.inputChannels > 0 && st.inputChannels != 1 && st.inputChannels != 3)
        candidates.push_back({st.inputChannels, st.inputSize});
    return candidates;
}

Result<std::pair<int, int>> probeInputShape(const ScriptSettings& settings, const std::string& path,
                                            const torch::Device& device, torch::Tensor& mean, torch::Tensor& std,
                                            const std::function<Result<Unit>(const torch::Tensor& grey)>& tryShape,
                                            const bool& raised) {
    const auto candidates = probeShapes(settings);
    if (candidates.empty())
        return Error{"model '" + path + "': mean and std have " + std::to_string(settings.mean.size()) +
                     " values: give 1 or one per channel (1 or 3), or input_size [C, S, S]"};
    // The probe runs unoptimised: TorchScript's optimising executor spends its first two calls
    // profiling and compiling (about 2x a forward on ViT-B/16), which one call cannot repay.
    // Later calls optimise as PyTorch does.
    torch::jit::GraphOptimizerEnabledGuard unoptimised(false);
    std::string lastError;
    for (const auto& [c, side] : candidates) {
        // A single mean and std apply to every channel of this try.
        std::tie(mean, std) = normalisationTensors(settings, c, device);
        auto out = tryShape(torch::full({1, c, side, side}, 0.5, torch::TensorOptions().device(device)));
        if (out) return std::make_pair(c, side);
        if (!raised) return Error{out.error()};
        lastError = out.error();
    }
    if (candidates.size() == 1) return Error{lastError};
    return Error{lastError + " (tried " + std::to_string(candidates.size()) +
                 " input shapes; declare input_size or center_crop, see docs/model-contract.md)"};
}

std::pair<torch::Tensor, torch::Tensor> normalisationTensors(const ScriptSettings& st, int channels,
                                                             const torch::Device& device) {
    if (st.mean.empty()) return {};
    const auto k = std::int64_t(st.mean.size());
    auto mean = torch::tensor(st.mean, torch::kFloat32).view({1, k, 1, 1}).expand({1, channels, 1, 1}).contiguous().to(device);
    auto std = torch::tensor(st.std, torch::kFloat32).view({1, k, 1, 1}).expand({1, channels, 1, 1}).contiguous().to(device);
    return {mean, std};
}

namespace {

constexpr std::size_t kMaxModelMessageBytes = 500;

std::string rawModelMessage(const std::exception& e) {
    const auto* c10 = dynamic_cast<const c10::Error*>(&e);
    const std::string text = c10 ? c10->what_without_backtrace() : e.what();
    if (text.rfind("The following operation failed in the TorchScript interpreter", 0) != 0) return firstLine(text);
    // The interpreter's traceback ends with the Python exception: "builtins.ValueError: first
    // line" and the message's further lines. Its first line is the one said.
    static const std::regex kRaised(R"(^(builtins\.)?[A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Exit|Interrupt|Warning): )");
    std::size_t found = std::string::npos;
    for (std::size_t at = 0; at < text.size();) {
        const auto end = text.find('\n', at);
        const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (std::regex_search(line, kRaised)) found = at;  // the last such line: the raised exception
        if (end == std::string::npos) break;
        at = end + 1;
    }
    if (found == std::string::npos) {
        const auto end = text.find_last_not_of(" \t\n");
        if (end == std::string::npos) return firstLine(text);
        const auto start = text.rfind('\n', end);
        found = start == std::string::npos ? 0 : start + 1;
    }
    std::string line = firstLine(text.substr(found));
    if (line.rfind("builtins.", 0) == 0) line = line.substr(9);
    return line;
}

}  // namespace

std::string modelsOwnMessage(const std::exception& e) {
    // The model's own words: escaped (no terminal sequence or direction override reaches a
    // terminal or a label) and at most a line's worth.
    return escapeDisplayText(rawModelMessage(e), kMaxModelMessageBytes);
}

Result<c10::IValue> callScriptMethod(torch::jit::Module& module, const std::string& path, const std::string& method,
                                     const torch::Tensor& images, const torch::Tensor& mean, const torch::Tensor& std,
                                     const std::vector<c10::IValue>& args, bool seeded, bool& raised) {
    raised = false;
    auto generator = at::detail::getDefaultCPUGenerator();
    torch::Tensor saved;
    auto restore = [&] {
        if (!saved.defined()) return;
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(saved);
    };
    try {
        torch::NoGradGuard noGrad;
        std::vector<c10::IValue> inputs{mean.defined() ? (images - mean) / std : images};
        inputs.insert(inputs.end(), args.begin(), args.end());
        if (seeded) {
            std::lock_guard<std::mutex> lock(generator.mutex());
            saved = generator.get_state();
        }
        auto out = module.get_method(method)(std::move(inputs));
        restore();
        return out;
    } catch (const std::exception& e) {
        restore();
        raised = true;
        return Error{"model '" + path + "': " + method + " failed: " + modelsOwnMessage(e)};
    }
}

}  // namespace saccade
