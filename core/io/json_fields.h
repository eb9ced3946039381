#pragma once
// Strict reading of sidecar and config fields: a JSON integer in range, never a float truncated
// (10.5 is not 10) nor a big number wrapped modulo 2^32 (4294967356 is not 60).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace saccade {

/// Thrown by the readers below; its message names the field and what was wrong.
struct JsonFieldError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Field `key` of object `j`: a JSON integer in [lo, hi]. Throws JsonFieldError otherwise.
std::int64_t intField(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi);

/// Like intField, for unsigned values up to 2^64 - 1 (seeds).
std::uint64_t uintField(const nlohmann::json& j, const char* key);

/// Field `key`: a finite JSON number in [lo, hi].
double numberField(const nlohmann::json& j, const char* key, double lo, double hi);

/// Field `key`: a JSON boolean.
bool boolField(const nlohmann::json& j, const char* key);

/// Field `key`: a JSON string.
std::string stringField(const nlohmann::json& j, const char* key);

/// Writing: JSON has no NaN or infinity, so a figure that does not exist is null.
nlohmann::json numberOrNull(double value);
/// The same for a figure that may not have been measured (an empty optional), in an ordered object.
nlohmann::ordered_json measuredOrNull(const std::optional<double>& value);

}  // namespace saccade
