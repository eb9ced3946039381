#include "common/parse.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace saccade {

namespace {
std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

std::string quoted(const std::string& text) {
    // Long or binary input is cut so that the error stays one readable line.
    std::string shown;
    for (char c : text.substr(0, 40)) shown += (c >= 32 && c < 127) ? c : '?';
    return "'" + shown + (text.size() > 40 ? "...'" : "'");
}

bool decimalCharacters(const std::string& t) {
    for (char c : t)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
            return false;
    return true;
}
}  // namespace

Result<std::int64_t> parseInteger(const std::string& text, const std::string& what, std::int64_t lo,
                                  std::int64_t hi) {
    const auto range = [&] {
        return lo == INT64_MIN && hi == INT64_MAX
                   ? std::string()
                   : " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
    };
    const std::size_t digits0 = (!text.empty() && text[0] == '-') ? 1 : 0;
    bool ok = text.size() > digits0;
    for (std::size_t i = digits0; ok && i < text.size(); ++i) ok = text[i] >= '0' && text[i] <= '9';
    if (!ok) return Error{what + " must be a whole number" + range() + ", got " + quoted(text)};
    errno = 0;
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return Error{what + " must be a whole number" + range() + ", got " + quoted(text)};
    return static_cast<std::int64_t>(v);
}

Result<double> parseNumber(const std::string& text, const std::string& what) {
    const std::string t = trim(text);
    if (t.empty() || !decimalCharacters(t)) return Error{what + " must be a finite number, got " + quoted(text)};
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v))
        return Error{what + " must be a finite number, got " + quoted(text)};
    return v;
}

namespace {

/// Splits "a, b,c" at commas and parses each trimmed item with `item`, which returns the value
/// or what is wrong with the text in a few words ("is not a finite number").
template <typename T, typename ParseItem>
Result<std::vector<T>> parseList(const std::string& text, const std::string& what, ParseItem item) {
    std::vector<T> out;
    if (trim(text).empty()) return Error{what + " are empty"};
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos) comma = text.size();
        const std::string one = trim(text.substr(start, comma - start));
        if (one.empty()) return Error{what + ": item " + std::to_string(out.size() + 1) + " is empty"};
        Result<T> v = item(one);
        if (!v) return Error{what + ": " + quoted(one) + " " + v.error()};
        out.push_back(*v);
        start = comma + 1;
    }
    return out;
}

}  // namespace

Result<std::vector<double>> parseNumberList(const std::string& text, const std::string& what) {
    return parseList<double>(text, what, [](const std::string& one) -> Result<double> {
        auto v = parseNumber(one, "item");
        if (!v) return Error{"is not a finite number"};
        return *v;
    });
}

Result<std::vector<std::int64_t>> parseIntegerList(const std::string& text, const std::string& what, std::int64_t lo,
                                                   std::int64_t hi) {
    return parseList<std::int64_t>(text, what, [lo, hi](const std::string& one) -> Result<std::int64_t> {
        auto v = parseInteger(one, "item", lo, hi);
        if (!v) return Error{"is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi)};
        return *v;
    });
}

Result<IntRange> parseIntRange(const std::string& text, const std::string& what) {
    const std::string form = what + " must be N or LO:HI (whole numbers, LO <= HI), got " + quoted(text);
    const auto colon = text.find(':');
    auto lo = parseInteger(text.substr(0, colon), what, -1000000, 1000000);
    if (!lo) return Error{form};
    if (colon == std::string::npos) return IntRange{int(*lo), int(*lo)};
    auto hi = parseInteger(text.substr(colon + 1), what, -1000000, 1000000);
    if (!hi || *hi < *lo) return Error{form};
    return IntRange{int(*lo), int(*hi)};
}

Result<SampleRef> parseSampleRef(const std::string& text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return Error{"--sample must be DATASET:INDEX, got " + quoted(text)};
    auto index = parseInteger(text.substr(colon + 1), "the sample index", 0);
    if (!index) return Error{"--sample must be DATASET:INDEX with a whole INDEX >= 0, got " + quoted(text)};
    return SampleRef{text.substr(0, colon), *index};
}

}  // namespace saccade
