#include "io/checkpoint.h"

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#ifndef SACCADE_GIT_REVISION
#define SACCADE_GIT_REVISION "unknown"
#endif

namespace saccade {

namespace {

const char* kFormat = "saccade.checkpoint";

// Weights and optimizer state go in one archive, under separate keys.
void writeArchive(const torch::nn::Module& model, const torch::optim::Optimizer* optimizer,
                  const std::string& path) {
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive weights;
    model.save(weights);
    archive.write("model", weights);
    if (optimizer) {
        torch::serialize::OutputArchive state;
        optimizer->save(state);
        archive.write("optimizer", state);
    }
    archive.save_to(path);
}

}  // namespace

std::string sidecarPath(const std::string& path) {
    return std::filesystem::path(path).replace_extension(".json").string();
}

std::string buildGitRevision() { return SACCADE_GIT_REVISION; }

Result<Unit> saveCheckpoint(const torch::nn::Module& model, const torch::optim::Optimizer* optimizer,
                            const CheckpointInfo& info, const std::string& path) {
    const std::string tmp = path + ".tmp";
    try {
        writeArchive(model, optimizer, tmp);
    } catch (const c10::Error& e) {
        std::remove(tmp.c_str());
        return Error{"cannot write checkpoint '" + path + "': " + e.what_without_backtrace()};
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        return Error{"cannot rename the checkpoint into '" + path + "'"};
    }
    nlohmann::json j = {{"format", kFormat},
                        {"format_version", info.formatVersion},
                        {"model_type", info.modelType},
                        {"config", nlohmann::json::parse(info.configJson)},
                        {"dataset", info.dataset},
                        {"seed", info.seed},
                        {"git_revision", info.gitRevision},
                        {"command", info.command},
                        {"metrics", nlohmann::json::parse(info.metricsJson)},
                        {"iteration", info.iteration},
                        {"total_iterations", info.totalIterations},
                        {"baseline", info.baseline},
                        {"weights", std::filesystem::path(path).filename().string()}};
    return writeFileAtomic(sidecarPath(path), j.dump(2) + "\n");
}

Result<CheckpointInfo> readCheckpointInfo(const std::string& path) {
    const auto sidecar = sidecarPath(path);
    if (!std::filesystem::exists(path)) return Error{"checkpoint '" + path + "' does not exist"};
    auto text = readFile(sidecar, 16u << 20);
    if (!text) {
        return Error{"checkpoint '" + path + "' has no readable sidecar '" + sidecar +
                     "' (it says what the weights are): " + text.error()};
    }
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return Error{"sidecar '" + sidecar + "' is not valid JSON"};
    if (j.value("format", "") != kFormat)
        return Error{"'" + sidecar + "' is not a Saccade checkpoint sidecar"};
    CheckpointInfo info;
    try {
        info.formatVersion = j.at("format_version");
        if (info.formatVersion > kCheckpointFormatVersion || info.formatVersion < 1) {
            return Error{"checkpoint '" + path + "' has format version " +
                         std::to_string(info.formatVersion) + "; this program reads 1.." +
                         std::to_string(kCheckpointFormatVersion)};
        }
        info.modelType = j.at("model_type");
        info.configJson = j.at("config").dump();
        info.dataset = j.at("dataset");
        info.seed = j.at("seed");
        info.gitRevision = j.value("git_revision", "");
        info.command = j.value("command", "");
        info.metricsJson = j.value("metrics", nlohmann::json::object()).dump();
        info.iteration = j.value("iteration", 0);
        info.totalIterations = j.value("total_iterations", 0);
        info.baseline = j.value("baseline", 0.0);
    } catch (const nlohmann::json::exception& e) {
        return Error{"sidecar '" + sidecar + "' is missing a field: " + e.what()};
    }
    return info;
}

Result<Unit> loadCheckpointWeights(torch::nn::Module& model, torch::optim::Optimizer* optimizer,
                                   const std::string& path, const c10::Device* device) {
    torch::serialize::InputArchive archive;
    try {
        archive.load_from(path, device ? c10::optional<torch::Device>(*device) : c10::nullopt);
    } catch (const c10::Error& e) {
        return Error{"checkpoint '" + path +
                     "' is truncated or not a LibTorch archive: " + e.what_without_backtrace()};
    }
    try {
        torch::serialize::InputArchive weights;
        if (!archive.try_read("model", weights))
            return Error{"checkpoint '" + path + "' holds no model weights"};
        // Loading replaces tensors wholesale, whatever their shape: check shapes ourselves.
        std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected;
        for (const auto& p : model.named_parameters())
            expected.emplace_back(p.key(), p.value().sizes().vec());
        model.load(weights);
        const auto loaded = model.named_parameters();
        for (const auto& [name, shape] : expected) {
            const auto got = loaded[name].sizes().vec();
            if (got != shape) {
                return Error{"checkpoint '" + path + "' does not match the model its sidecar "
                             "describes: parameter " + name + " is " + c10::str(c10::IntArrayRef(got)) +
                             " in the file but " + c10::str(c10::IntArrayRef(shape)) + " in the model"};
            }
        }
        if (optimizer) {
            torch::serialize::InputArchive state;
            if (archive.try_read("optimizer", state)) optimizer->load(state);
        }
    } catch (const c10::Error& e) {
        return Error{"checkpoint '" + path + "' does not match the model its sidecar describes "
                     "(parameter names or shapes differ): " + e.what_without_backtrace()};
    }
    return Unit{};
}

Result<Unit> checkOutputPath(const std::string& path) {
    if (path.empty()) return Error{"no output checkpoint path given"};
    const auto folder = std::filesystem::path(path).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder))
        return Error{"cannot write checkpoint '" + path + "': the folder '" + folder.string() + "' does not exist"};
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Error{"cannot write checkpoint '" + path + "': it is a folder; give a file name such as model.pt"};
    return Unit{};
}

}  // namespace saccade
