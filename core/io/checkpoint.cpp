#include "io/checkpoint.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>
#include <zlib.h>

#include <fcntl.h>
#include <unistd.h>

#include "io/json_fields.h"
#include "io/zip_check.h"
#include "common/torch_errors.h"

#ifndef SACCADE_GIT_REVISION
#define SACCADE_GIT_REVISION "unknown"
#endif

namespace saccade {

namespace {

const char* kFormat = "saccade.checkpoint";

// Weights and optimizer state go in one archive, under separate keys, serialised in memory so
// that the file is written once, atomically.
std::string archiveBytes(const torch::nn::Module& model, const torch::optim::Optimizer* optimizer) {
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive weights;
    model.save(weights);
    archive.write("model", weights);
    if (optimizer) {
        torch::serialize::OutputArchive state;
        optimizer->save(state);
        archive.write("optimizer", state);
    }
    std::ostringstream out(std::ios::binary);
    archive.save_to(out);
    return out.str();
}

// Checkpoints larger than this are refused before reading (the bundled ones are under 10 MB).
constexpr std::size_t kMaxCheckpointBytes = std::size_t{4} << 30;

}  // namespace

std::string crc32Hex(const std::string& bytes) {
    uLong crc = crc32(0L, Z_NULL, 0);
    for (std::size_t at = 0; at < bytes.size(); at += 1u << 30)
        crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at),
                    static_cast<uInt>(std::min<std::size_t>(bytes.size() - at, 1u << 30)));
    char text[9];
    std::snprintf(text, sizeof text, "%08lx", static_cast<unsigned long>(crc));
    return text;
}

Result<std::string> fileCrc32(const std::string& path) {
    auto bytes = readFile(path, kMaxCheckpointBytes);
    if (!bytes) return Error{bytes.error()};
    return crc32Hex(*bytes);
}

std::string sidecarPath(const std::string& path) {
    return std::filesystem::path(path).replace_extension(".json").string();
}

std::vector<std::string> checkpointCompanions(const std::string& path) {
    const auto stem = std::filesystem::path(path).replace_extension("").string();
    return {sidecarPath(path), stem + ".metrics.csv", stem + ".metrics.json"};
}

std::string buildGitRevision() { return SACCADE_GIT_REVISION; }

Result<Unit> saveCheckpoint(const torch::nn::Module& model, const torch::optim::Optimizer* optimizer,
                            const CheckpointInfo& info, const std::string& path) {
    std::string bytes;
    try {
        bytes = archiveBytes(model, optimizer);
    } catch (const c10::Error& e) {
        return Error{"cannot write checkpoint '" + path + "': " + torchErrorLine(e)};
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
                        {"weights", std::filesystem::path(path).filename().string()},
                        {"weights_bytes", bytes.size()},
                        {"weights_crc32", crc32Hex(bytes)}};
    if (!info.earlierSchedules.empty()) {
        nlohmann::json schedules = nlohmann::json::array();
        for (const auto& [until, total] : info.earlierSchedules) schedules.push_back({{"until", until}, {"total", total}});
        j["earlier_schedules"] = schedules;
    }
    // The weights and the sidecar that describes them are renamed into place together.
    return writeFilesAtomic({{path, bytes}, {sidecarPath(path), j.dump(2) + "\n"}});
}

Result<CheckpointInfo> readCheckpointInfo(const std::string& path) {
    const auto sidecar = sidecarPath(path);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Error{"checkpoint '" + path + "' does not exist"};
    if (std::filesystem::is_directory(path, ec))
        return Error{"'" + path + "' is a folder; give a checkpoint file (.pt)"};
    auto text = readFile(sidecar, 16u << 20);
    if (!text) {
        return Error{"checkpoint '" + path + "' has no readable sidecar '" + sidecar +
                     "' (it says what the weights are): " + text.error()};
    }
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded()) return Error{"sidecar '" + sidecar + "' is not valid JSON"};
    if (!j.is_object())
        return Error{"sidecar '" + sidecar + "' holds a JSON " + std::string(j.type_name()) +
                     ", not the object that describes a checkpoint"};
    if (j.value("format", "") != kFormat)
        return Error{"'" + sidecar + "' is not a Saccade checkpoint sidecar"};
    CheckpointInfo info;
    try {
        info.formatVersion = static_cast<int>(intField(j, "format_version", 0, 1000000));
        if (info.formatVersion > kCheckpointFormatVersion || info.formatVersion < 1) {
            return Error{"checkpoint '" + path + "' has format version " +
                         std::to_string(info.formatVersion) + "; this program reads 1.." +
                         std::to_string(kCheckpointFormatVersion)};
        }
        info.modelType = stringField(j, "model_type");
        if (!j.contains("config") || !j["config"].is_object()) throw JsonFieldError("'config' must be a JSON object");
        info.configJson = j.at("config").dump();
        info.dataset = stringField(j, "dataset");
        info.seed = uintField(j, "seed");
        info.gitRevision = j.contains("git_revision") ? stringField(j, "git_revision") : "";
        info.command = j.contains("command") ? stringField(j, "command") : "";
        info.metricsJson = j.value("metrics", nlohmann::json::object()).dump();
        info.iteration = j.contains("iteration") ? intField(j, "iteration", 0, INT64_MAX) : 0;
        info.totalIterations = j.contains("total_iterations") ? intField(j, "total_iterations", 0, INT64_MAX) : 0;
        info.baseline = j.contains("baseline") ? numberField(j, "baseline", -1e300, 1e300) : 0.0;
        info.weightsCrc32 = j.contains("weights_crc32") ? stringField(j, "weights_crc32") : "";
        if (j.contains("earlier_schedules")) {
            if (!j["earlier_schedules"].is_array()) throw JsonFieldError("'earlier_schedules' must be an array");
            for (const auto& e : j["earlier_schedules"]) {
                if (!e.is_object()) throw JsonFieldError("'earlier_schedules' must hold objects {until, total}");
                const auto until = intField(e, "until", 0, INT64_MAX), total = intField(e, "total", 0, INT64_MAX);
                info.earlierSchedules.emplace_back(until, total);
            }
        }
    } catch (const nlohmann::json::exception& e) {
        return Error{"sidecar '" + sidecar + "' is missing a field: " + firstLine(e.what())};
    } catch (const JsonFieldError& e) {
        return Error{"sidecar '" + sidecar + "': " + e.what()};
    }
    return info;
}

Result<Unit> loadCheckpointWeights(torch::nn::Module& model, torch::optim::Optimizer* optimizer,
                                   const std::string& path, const c10::Device* device) {
    auto bytes = readFile(path, kMaxCheckpointBytes);
    if (!bytes) return Error{bytes.error()};
    if (auto intact = verifyZipArchive(*bytes, "checkpoint '" + path + "'"); !intact) return Error{intact.error()};
    // The sidecar records the CRC of the whole file: weights swapped for another file's are found.
    if (auto info = readCheckpointInfo(path); info && !info->weightsCrc32.empty() && info->weightsCrc32 != crc32Hex(*bytes))
        return Error{"checkpoint '" + path + "' is not the file its sidecar describes (CRC-32 " + crc32Hex(*bytes) +
                     ", the sidecar says " + info->weightsCrc32 + ")"};
    torch::serialize::InputArchive archive;
    try {
        std::istringstream in(*bytes, std::ios::binary);
        archive.load_from(in, device ? c10::optional<torch::Device>(*device) : c10::nullopt);
    } catch (const c10::Error& e) {
        return Error{"checkpoint '" + path + "' is not a LibTorch archive: " + firstLine(torchErrorLine(e))};
    } catch (const std::exception& e) {  // the TorchScript reader's own errors are not c10::Error
        return Error{"checkpoint '" + path + "' is not a LibTorch archive: " + firstLine(e.what())};
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
        if (optimizer) {  // only a resume asks for it
            torch::serialize::InputArchive state;
            if (!archive.try_read("optimizer", state))
                return Error{"cannot resume '" + path + "': it holds no optimizer state (a stripped copy, made by "
                             "'saccade-cli strip'), which cannot be resumed; resume the checkpoint it was copied from"};
            optimizer->load(state);
        }
    } catch (const c10::Error& e) {
        return Error{"checkpoint '" + path + "' does not match the model its sidecar describes "
                     "(parameter names or shapes differ): " + firstLine(torchErrorLine(e))};
    } catch (const std::exception& e) {
        return Error{"checkpoint '" + path + "' does not match the model its sidecar describes: " + firstLine(e.what())};
    }
    return Unit{};
}

Result<Unit> checkOutputPath(const std::string& path) {
    if (path.empty()) return Error{"no output checkpoint path given"};
    auto target = resolveSaveTarget(path);  // refuses a folder, device or FIFO, naming it
    if (!target) return Error{target.error()};
    // The sidecar and the metrics go beside it and must be writable too.
    for (const auto& companion : checkpointCompanions(path))
        if (auto target = resolveSaveTarget(companion); !target) return Error{target.error()};
    // Permission bits do not tell everything (root in /proc, a read-only mount): create and
    // remove a file there now rather than fail after hours of training.
    const std::string probe = *target + ".probe-" + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return Error{"cannot write checkpoint '" + path + "': " + std::strerror(errno)};
    ::close(fd);
    ::unlink(probe.c_str());
    return Unit{};
}

}  // namespace saccade
