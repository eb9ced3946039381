#include "analysis/attribution/image_maps.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/attribution/faithfulness.h"
#include "metrics/attention_regions.h"
#include "models/gradient_forward.h"
#include "trace/rule_kind.h"

namespace saccade {

namespace {

bool isMapMethod(const std::string& name) {
    const auto& all = mapMethods();
    return std::find(all.begin(), all.end(), name) != all.end();
}

std::vector<double> normalisedMap(std::vector<double> map) {
    double total = 0;
    for (double v : map) total += v;
    for (auto& v : map) v = total > 0 ? v / total : 0.0;
    return map;
}

// A trace's map: its steps on the grid, averaged.
Result<std::vector<double>> traceMap(AttentionModel& model, const Image& image, const std::string& rule,
                                     const MapSettings& s) {
    auto t = model.trace(image, rule, s.seed, "map");
    if (!t) return Error{t.error()};
    std::vector<std::vector<double>> steps;
    for (const auto& step : t->steps)
        if (step.grid || step.gaussian) steps.push_back(attentionOnGrid(step, image.width, image.height, s.rows, s.cols));
    if (steps.empty()) return Error{model.displayName() + " gave no attention map under " + rule};
    return normalisedMap(meanStepMap(steps, s.rows * s.cols));
}

}  // namespace

const std::vector<std::string>& mapMethods() {
    static const std::vector<std::string> methods = [] {
        std::vector<std::string> all{"attention", "rollout"};
        for (const auto& m : attributionMethods()) all.push_back(m);
        return all;
    }();
    return methods;
}

Result<std::vector<std::string>> parseMethodList(const std::string& commaList, const std::vector<std::string>& allowed) {
    std::vector<std::string> out;
    std::stringstream in(commaList);
    std::string name;
    while (std::getline(in, name, ',')) {
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
            std::string all;
            for (const auto& m : allowed) all += (all.empty() ? "" : ", ") + m;
            return Error{"--methods: unknown map '" + name + "' (use " + all + ")"};
        }
        if (std::find(out.begin(), out.end(), name) != out.end()) return Error{"--methods: '" + name + "' is named twice"};
        out.push_back(name);
    }
    if (out.empty() || commaList.back() == ',') return Error{"--methods: give a comma-separated list of maps"};
    return out;
}

Result<std::vector<std::string>> parseMapMethods(const std::string& commaList) {
    return parseMethodList(commaList, mapMethods());
}

MethodSelection selectMethods(const std::vector<std::string>& asked,
                              const std::function<Result<Unit>(const std::string&)>& check) {
    MethodSelection s;
    for (const auto& m : asked) {
        if (auto ok = check(m); ok) s.kept.push_back(m);
        else s.omitted.push_back({m, ok.error()});
    }
    return s;
}

Result<Unit> checkMapMethod(AttentionModel& model, const std::string& method) {
    if (!isMapMethod(method)) return Error{"unknown map '" + method + "'"};
    if (!traitsOf(model.outputKind()).labelsAreClasses)
        return Error{"--methods compares maps of classifiers; " + model.displayName() + " outputs " + outputKindName(model.outputKind())};
    if (method == "attention" || method == "occlusion") return Unit{};
    if (method == "rollout") {
        const auto rules = model.ruleMenu().rules;
        if (std::none_of(rules.begin(), rules.end(), [](const std::string& r) { return isRule(r, RuleKind::Rollout); }))
            return Error{model.displayName() + " has no rollout (it is not a transformer)"};
        return Unit{};
    }
    return checkGradientMethod(model, model.gradientForward(), method);
}

Result<std::vector<double>> imageMap(AttentionModel& model, const std::string& method, const Image& image, int target,
                                     const MapSettings& s) {
    if (method == "attention") return traceMap(model, image, s.rule, s);
    if (method == "rollout") return traceMap(model, image, "rollout", s);
    if (s.rows != s.cols) return Error{"attribution maps need a square grid, not " + std::to_string(s.rows) + "x" +
                                       std::to_string(s.cols)};
    AttributionOptions o = s.attribution;
    o.method = method;
    o.target = target;
    o.rule = s.rule;
    o.seed = s.seed;
    o.cellsPerSide = s.rows;
    auto map = attribute(model, image, o);
    if (!map) return Error{map.error()};
    if (map->rows != s.rows || map->cols != s.cols)
        return Error{method + " gave a " + std::to_string(map->rows) + "x" + std::to_string(map->cols) + " map, not " +
                     std::to_string(s.rows) + "x" + std::to_string(s.cols)};
    return map->cells;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size() || a.size() < 2) return 0;
    double ma = 0, mb = 0;
    for (size_t i = 0; i < a.size(); ++i) ma += a[i], mb += b[i];
    ma /= double(a.size());
    mb /= double(b.size());
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace saccade
