#include "models/input_overrides.h"

#include <algorithm>
#include <cstdio>

#include "common/parse.h"

namespace saccade {

Result<std::pair<int, int>> parseCropSide(const std::string& text, const std::string& what) {
    const auto x = text.find('x');
    auto h = parseInteger(text.substr(0, x), what, 1, 8192);
    if (!h) return Error{h.error()};
    if (x == std::string::npos) return std::pair<int, int>{int(*h), int(*h)};
    auto w = parseInteger(text.substr(x + 1), what, 1, 8192);
    if (!w) return Error{w.error()};
    return std::pair<int, int>{int(*h), int(*w)};
}

Result<std::vector<float>> parseChannelValues(const std::string& text, const std::string& what, bool isStd) {
    if (text == "imagenet") return isStd ? kImagenetStd : kImagenetMean;
    auto values = parseNumberList(text, what);
    if (!values) return Error{values.error() + " (or imagenet)"};
    if (values->size() > 4) return Error{what + " takes 1 to 4 values (one per channel), not " + std::to_string(values->size())};
    std::vector<float> out;
    for (double v : *values) {
        if (isStd && v <= 0) return Error{what + " must be positive, not " + text};
        out.push_back(float(v));
    }
    return out;
}

Result<InputOverrides> parseInputOverrides(const std::string& resize, const std::string& crop, const std::string& mean,
                                           const std::string& std) {
    InputOverrides o;
    if (!resize.empty()) {
        auto r = parseInteger(resize, "--resize", 1, 8192);
        if (!r) return Error{r.error()};
        o.resize = int(*r);
    }
    if (!crop.empty()) {
        auto c = parseCropSide(crop, "--center-crop");
        if (!c) return Error{c.error()};
        o.crop = *c;
    }
    if (mean.empty() != std.empty()) {
        // The preset names both: --mean imagenet alone brings its std.
        if (mean != "imagenet" && std != "imagenet") return Error{"give --mean and --std together (or --mean imagenet)"};
    }
    if (!mean.empty() || !std.empty()) {
        auto m = parseChannelValues(mean.empty() ? std : mean, "--mean", false);
        if (!m) return Error{m.error()};
        auto s = parseChannelValues(std.empty() ? mean : std, "--std", true);
        if (!s) return Error{s.error()};
        if (m->size() != s->size())
            return Error{"--mean has " + std::to_string(m->size()) + (m->size() == 1 ? " value" : " values") + " but --std has " +
                         std::to_string(s->size())};
        o.mean = *m;
        o.std = *s;
    }
    if (o.resize && o.crop && std::max(o.crop->first, o.crop->second) > *o.resize)
        return Error{"--center-crop " + crop + " is larger than --resize " + resize};
    return o;
}

std::string describeNormalisation(const std::vector<float>& mean, const std::vector<float>& std) {
    if (mean.empty()) return "none";
    if (mean == kImagenetMean && std == kImagenetStd) return "imagenet (mean 0.485,0.456,0.406, std 0.229,0.224,0.225)";
    auto list = [](const std::vector<float>& v) {
        std::string s;
        for (float x : v) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%g", double(x));
            s += (s.empty() ? "" : ",") + std::string(buf);
        }
        return s;
    };
    return "mean " + list(mean) + ", std " + list(std);
}

}  // namespace saccade
