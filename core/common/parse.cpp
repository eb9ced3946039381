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
}  // namespace

Result<std::vector<double>> parseNumberList(const std::string& text, const std::string& what) {
    std::vector<double> out;
    if (trim(text).empty()) return Error{what + " are empty"};
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = trim(text.substr(start, comma - start));
        if (item.empty())
            return Error{what + ": item " + std::to_string(out.size() + 1) + " is empty"};
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(item.c_str(), &end);
        if (end != item.c_str() + item.size() || errno == ERANGE || !std::isfinite(v))
            return Error{what + ": '" + item + "' is not a finite number"};
        out.push_back(v);
        start = comma + 1;
    }
    return out;
}

}  // namespace saccade
