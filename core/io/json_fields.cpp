#include "io/json_fields.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

namespace saccade {

namespace {
const nlohmann::json& field(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) throw JsonFieldError("expected a JSON object holding '" + std::string(key) + "'");
    const auto it = j.find(key);
    if (it == j.end()) throw JsonFieldError("the field '" + std::string(key) + "' is missing");
    return *it;
}

std::string shown(const nlohmann::json& v) {
    std::string text = v.dump();
    return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}
}  // namespace

std::int64_t intField(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi) {
    const auto& v = field(j, key);
    const bool whole = v.is_number_integer() && !(v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX);
    if (!whole || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
        throw JsonFieldError("'" + std::string(key) + "' must be a whole number from " + std::to_string(lo) + " to " +
                             std::to_string(hi) + ", got " + shown(v));
    return v.get<std::int64_t>();
}

std::uint64_t uintField(const nlohmann::json& j, const char* key) {
    const auto& v = field(j, key);
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
    throw JsonFieldError("'" + std::string(key) + "' must be a whole number >= 0, got " + shown(v));
}

double numberField(const nlohmann::json& j, const char* key, double lo, double hi) {
    const auto& v = field(j, key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi) {
        std::ostringstream s;
        s << "'" << key << "' must be a number from " << lo << " to " << hi << ", got " << shown(v);
        throw JsonFieldError(s.str());
    }
    return v.get<double>();
}

std::string stringField(const nlohmann::json& j, const char* key) {
    const auto& v = field(j, key);
    if (!v.is_string()) throw JsonFieldError("'" + std::string(key) + "' must be a string, got " + shown(v));
    return v.get<std::string>();
}

bool boolField(const nlohmann::json& j, const char* key) {
    const auto& v = field(j, key);
    if (!v.is_boolean()) throw JsonFieldError("'" + std::string(key) + "' must be true or false, got " + shown(v));
    return v.get<bool>();
}

nlohmann::json numberOrNull(double value) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::ordered_json measuredOrNull(const std::optional<double>& value) {
    return value && std::isfinite(*value) ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace saccade
