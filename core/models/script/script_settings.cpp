#include "models/script/script_settings.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/display_text.h"

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
        for (const char* key : {"class_names", "input_size", "mean", "std", "patch_grid", "dataset"}) raw[key] = setting(key);
    } catch (const std::invalid_argument& e) {
        return Error{e.what()};
    }
    ScriptSettings s;
    if (auto j = raw["class_names"]; !j.is_null()) {
        if (!j.is_array() || j.empty()) return Error{"class_names must be a non-empty list of strings"};
        for (const auto& name : j) {
            if (!name.is_string()) return Error{"class_names must be a list of strings, not " + j.dump().substr(0, 60)};
            auto shown = checkDisplayText(name.get<std::string>(),
                                          "class name " + std::to_string(s.classNames.size()), kMaxClassNameBytes);
            if (!shown) return Error{shown.error()};
            s.classNames.push_back(*shown);
        }
    }
    if (auto j = raw["input_size"]; !j.is_null()) {
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
            return Error{"input_size " + j.dump() + " is not square; Saccade's views take square images"};
        s.inputSize = v.front();
    }
    const auto mean = raw["mean"], std = raw["std"];
    if (mean.is_null() != std.is_null()) return Error{"give mean and std together"};
    if (!mean.is_null()) {
        auto m = settingFloats(mean, "mean");
        if (!m) return Error{m.error()};
        auto d = settingFloats(std, "std");
        if (!d) return Error{d.error()};
        if (m->size() != d->size()) return Error{"mean and std have different lengths"};
        for (float v : *d)
            if (v <= 0) return Error{"std must be positive"};
        if (m->size() > 1 && s.inputChannels > 0 && int(m->size()) != s.inputChannels)
            return Error{"mean has " + std::to_string(m->size()) + " values for " + std::to_string(s.inputChannels) + " channels"};
        if (m->size() > 1 && s.inputChannels == 0) s.inputChannels = int(m->size());
        s.mean = *m;
        s.std = *d;
    }
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
