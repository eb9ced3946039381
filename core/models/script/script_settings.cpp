#include "models/script/script_settings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/display_text.h"
#include "models/input_overrides.h"

namespace saccade {

namespace {

/// A class name is a label on a chart, a line in a terminal and a cell in a report: a short phrase.
constexpr std::size_t kMaxClassNameBytes = 200;

// A setting's value as JSON, from a module attribute of a plain type (int, float, str, list or
// tuple of them); null when the attribute is of another type.
nlohmann::json attributeJson(const c10::IValue& v) {
    if (v.isInt()) return v.toInt();
    if (v.isDouble()) return v.toDouble();
    if (v.isString()) return v.toStringRef();
    if (v.isBool()) return v.toBool();
    if (v.isTensor()) {  // a buffer such as mean = torch.tensor([0.5]): up to 16 numbers
        const auto t = v.toTensor();
        if (t.dim() > 1 || t.numel() > 16 || t.numel() == 0) return nullptr;
        nlohmann::json a = nlohmann::json::array();
        const auto flat = t.to(torch::kCPU, torch::kDouble).contiguous();
        for (std::int64_t i = 0; i < flat.numel(); ++i) a.push_back(flat.data_ptr<double>()[i]);
        return a;
    }
    if (v.isList() || v.isTuple()) {
        nlohmann::json a = nlohmann::json::array();
        const auto items = v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec();
        for (const auto& item : items) {
            auto j = attributeJson(item);
            if (j.is_null()) return nullptr;
            a.push_back(j);
        }
        return a;
    }
    return nullptr;
}

Result<std::vector<int>> settingInts(const nlohmann::json& j, const std::string& key) {
    std::vector<int> out;
    const auto items = j.is_array() ? j : nlohmann::json::array({j});
    for (const auto& item : items) {
        if (!item.is_number_integer() || item.get<std::int64_t>() < 1 || item.get<std::int64_t>() > 4096)
            return Error{key + " must be an integer 1..4096 or a list of them, not " + j.dump()};
        out.push_back(item.get<int>());
    }
    if (out.empty()) return Error{key + " is an empty list"};
    return out;
}

Result<std::vector<float>> settingFloats(const nlohmann::json& j, const std::string& key) {
    std::vector<float> out;
    const auto items = j.is_array() ? j : nlohmann::json::array({j});
    for (const auto& item : items) {
        if (!item.is_number() || !std::isfinite(item.get<double>()))
            return Error{key + " must be a finite number or a list of them, not " + j.dump()};
        out.push_back(item.get<float>());
    }
    if (out.empty() || out.size() > 4) return Error{key + " needs 1 to 4 values (one per channel)"};
    return out;
}

}  // namespace

namespace {

Result<Unit> readClassNames(const nlohmann::json& j, ScriptSettings& s) {
    if (j.is_null()) return Unit{};
    if (!j.is_array() || j.empty()) return Error{"class_names must be a non-empty list of strings"};
    for (const auto& name : j) {
        if (!name.is_string()) return Error{"class_names must be a list of strings, not " + j.dump().substr(0, 60)};
        auto shown = checkDisplayText(name.get<std::string>(), "class name " + std::to_string(s.classNames.size()), kMaxClassNameBytes);
        if (!shown) return Error{shown.error()};
        s.classNames.push_back(*shown);
    }
    return Unit{};
}

Result<Unit> readInputSize(const nlohmann::json& j, ScriptSettings& s) {
    if (j.is_null()) return Unit{};
    auto parsed = settingInts(j, "input_size");
    if (!parsed) return Error{parsed.error()};
    auto v = *parsed;
    if (v.size() > 3) return Error{"input_size must be S, [S, S] or [C, S, S], not " + j.dump()};
    if (v.size() == 3) {
        if (v[0] > 4) return Error{"input_size [C, H, W] needs 1 to 4 channels, not " + std::to_string(v[0])};
        s.inputChannels = v[0];
        v.erase(v.begin());
    }
    if (v.size() == 2 && v[0] != v[1])
        return Error{"input_size " + j.dump() + " is not square; Saccade's views take square images (non-square inputs are not supported yet)"};
    s.inputSize = v.front();
    return Unit{};
}

// mean and std: numbers, or the preset "imagenet" (either one names both).
Result<Unit> readNormalisation(const nlohmann::json& mean, const nlohmann::json& std, ScriptSettings& s) {
    const bool preset = mean == "imagenet" || std == "imagenet";
    if (mean.is_null() && std.is_null()) return Unit{};
    if ((mean.is_null() || std.is_null()) && !preset) return Error{"give mean and std together (or mean = \"imagenet\")"};
    auto read = [&](const nlohmann::json& j, const char* key, const std::vector<float>& presetValues) -> Result<std::vector<float>> {
        if (j == "imagenet" || (j.is_null() && preset)) return presetValues;
        return settingFloats(j, key);
    };
    auto m = read(mean, "mean", kImagenetMean);
    if (!m) return Error{m.error()};
    auto d = read(std, "std", kImagenetStd);
    if (!d) return Error{d.error()};
    if (m->size() != d->size()) return Error{"mean and std have different lengths"};
    for (float v : *d)
        if (v <= 0) return Error{"std must be positive"};
    if (m->size() > 1 && s.inputChannels > 0 && int(m->size()) != s.inputChannels)
        return Error{"mean has " + std::to_string(m->size()) + " values for " + std::to_string(s.inputChannels) + " channels"};
    if (m->size() > 1 && s.inputChannels == 0) s.inputChannels = int(m->size());
    s.mean = *m;
    s.std = *d;
    return Unit{};
}

// resize, center_crop, prefix_tokens and readout_token.
Result<Unit> readFitAndTokens(std::map<std::string, nlohmann::json>& raw, ScriptSettings& s) {
    if (auto j = raw["resize"]; !j.is_null()) {
        auto v = settingInts(j, "resize");
        if (!v) return Error{v.error()};
        if (v->size() != 1) return Error{"resize must be one integer (the shorter side), not " + j.dump()};
        s.resize = v->front();
    }
    if (auto j = raw["center_crop"]; !j.is_null()) {
        auto v = settingInts(j, "center_crop");
        if (!v) return Error{v.error()};
        if (v->size() > 2) return Error{"center_crop must be S or [H, W], not " + j.dump()};
        s.centerCrop = std::pair<int, int>{v->front(), v->back()};
    }
    for (const char* key : {"prefix_tokens", "readout_token"}) {
        const auto j = raw[key];
        if (j.is_null()) continue;
        if (!j.is_number_integer() || j.get<std::int64_t>() < 0 || j.get<std::int64_t>() > 64)
            return Error{std::string(key) + " must be an integer 0..64, not " + j.dump()};
        (std::string(key) == "prefix_tokens" ? s.prefixTokens : s.readoutToken) = j.get<int>();
    }
    if (!raw["readout_token"].is_null() && s.readoutToken >= std::max(s.prefixTokens, 1))
        return Error{"readout_token " + std::to_string(s.readoutToken) + " is not one of the " +
                     std::to_string(std::max(s.prefixTokens, 0)) + " prefix tokens (prefix_tokens)"};
    return Unit{};
}

}  // namespace

Result<ScriptSettings> readScriptSettings(const torch::jit::Module& module, const std::string& extraJson) {
    nlohmann::json file = nlohmann::json::object();
    if (!extraJson.empty()) {
        file = nlohmann::json::parse(extraJson, nullptr, false);
        if (file.is_discarded() || !file.is_object()) return Error{"its saccade.json is not a JSON object"};
    }
    auto setting = [&](const std::string& key) -> nlohmann::json {
        if (module.hasattr(key)) {
            auto j = attributeJson(module.attr(key));
            if (!j.is_null()) return j;
            throw std::invalid_argument(key + " is of a type Saccade cannot read (use a number, a string, or a list of them)");
        }
        return file.contains(key) ? file[key] : nlohmann::json();
    };
    std::map<std::string, nlohmann::json> raw;
    try {
        for (const char* key : {"class_names", "input_size", "mean", "std", "patch_grid", "dataset", "resize", "center_crop",
                                "prefix_tokens", "readout_token"})
            raw[key] = setting(key);
    } catch (const std::invalid_argument& e) {  // a file's text may be long or hold anything: one shown line
        return Error{escapeDisplayText(firstLine(e.what()), 300)};
    }
    ScriptSettings s;
    if (auto ok = readClassNames(raw["class_names"], s); !ok) return Error{ok.error()};
    if (auto ok = readInputSize(raw["input_size"], s); !ok) return Error{ok.error()};
    if (auto ok = readNormalisation(raw["mean"], raw["std"], s); !ok) return Error{ok.error()};
    if (auto ok = readFitAndTokens(raw, s); !ok) return Error{ok.error()};
    if (auto j = raw["patch_grid"]; !j.is_null()) {
        auto v = settingInts(j, "patch_grid");
        if (!v) return Error{v.error()};
        if (v->size() > 2) return Error{"patch_grid must be S or [rows, cols], not " + j.dump()};
        s.patchGrid = std::pair<int, int>{v->front(), v->back()};
    }
    if (auto j = raw["dataset"]; !j.is_null()) {
        if (!j.is_string()) return Error{"dataset must be a string"};
        auto shown = checkDisplayText(j.get<std::string>(), "dataset", 4096);
        if (!shown) return Error{shown.error()};
        s.dataset = *shown;
    }
    return s;
}

}  // namespace saccade
