#include "resume_check.h"

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/parse.h"
#include "io/checkpoint.h"

namespace saccade::cli {

namespace {

/// The checkpoint's value for option `name` (--task: its config's "task"); nullopt when it
/// records none.
std::optional<nlohmann::json> recorded(const std::string& name, const CheckpointInfo& info,
                                       const nlohmann::json& config) {
    if (name.rfind("--", 0) != 0) return std::nullopt;
    if (name == "--dataset") return nlohmann::json(info.dataset);
    if (name == "--seed") return nlohmann::json(info.seed);
    std::string key = name.substr(2);
    for (char& c : key)
        if (c == '-') c = '_';
    if (key == "std") key = "location_std";  // train ram's --std is the location policy's
    if (config.is_object() && config.contains(key)) return config[key];
    return std::nullopt;
}

bool sameValue(const nlohmann::json& saved, const std::string& given) {
    if (saved.is_string()) return saved.get<std::string>() == given;
    if (saved.is_number()) {
        auto number = parseNumber(given, "value");
        return number && std::abs(*number - saved.get<double>()) <= 1e-9 * std::max(1.0, std::abs(*number));
    }
    if (saved.is_boolean()) return (given == "true" || given == "1") == saved.get<bool>();
    return false;
}

std::string shown(const nlohmann::json& saved) {
    return saved.is_string() ? "'" + saved.get<std::string>() + "'" : saved.dump();
}

}  // namespace

void checkResumeAgreesWithCheckpoint(CLI::App& app) {
    auto trains = app.get_subcommands();
    if (trains.empty() || trains.front()->get_name() != "train") return;
    auto families = trains.front()->get_subcommands();
    if (families.empty()) return;
    const CLI::App* leaf = families.front();
    const CLI::Option* resume = leaf->get_option_no_throw("--resume");
    if (!resume || resume->count() == 0) return;
    const std::string path = resume->as<std::string>();
    auto info = readCheckpointInfo(path);
    if (!info) return;  // the trainer says why it cannot be read
    const auto config = nlohmann::json::parse(info->configJson, nullptr, false);
    for (const CLI::Option* opt : leaf->get_options()) {
        if (opt->count() == 0 || opt->get_name() == "--resume") continue;
        const auto saved = recorded(opt->get_name(), *info, config);
        if (!saved || sameValue(*saved, opt->as<std::string>())) continue;
        throw CLI::ValidationError(opt->get_name() + " " + opt->as<std::string>() + " differs from the resumed checkpoint's " +
                                   shown(*saved) + ": --resume continues '" + path +
                                   "' as it was trained (drop the option, or start a new run)");
    }
}

}  // namespace saccade::cli
