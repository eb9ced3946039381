#include "models/script/script_outputs.h"

#include <map>
#include <sstream>

#include <torch/torch.h>

#include "models/script/script_methods.h"

namespace saccade {

namespace {

std::string shapeText(const torch::Tensor& t) {
    std::ostringstream s;
    s << "[";
    for (std::int64_t d = 0; d < t.dim(); ++d) s << (d ? ", " : "") << t.size(d);
    s << "]";
    return s.str();
}

struct OutputReader {
    std::string method;
    std::map<std::string, torch::Tensor> tensors;
    bool keepGraph = false;  // floating tensors stay in autograd's graph (checks read a detached copy)

    std::string where(const std::string& key) const { return method + "'s '" + key + "'"; }

    // A floating tensor of rank `rank` with `batch` rows, as float32; `required` says whether a
    // missing key is an error (else an undefined tensor comes back).
    Result<torch::Tensor> get(const std::string& key, std::int64_t rank, std::int64_t batch, const std::string& expected,
                              bool floating = true) const {
        const auto it = tensors.find(key);
        if (it == tensors.end()) return torch::Tensor();
        const auto& t = it->second;
        if (t.dim() != rank)
            return Error{where(key) + " has shape " + shapeText(t) + "; expected " + expected};
        for (std::int64_t d = 1; d < t.dim(); ++d)
            if (t.size(d) == 0) return Error{where(key) + " has shape " + shapeText(t) + "; no size may be 0"};
        if (t.size(0) != batch)
            return Error{where(key) + " has " + std::to_string(t.size(0)) + " rows for a batch of " + std::to_string(batch)};
        if (floating && !t.is_floating_point())
            return Error{where(key) + " has dtype " + std::string(c10::toString(t.scalar_type())) +
                         "; expected a floating-point tensor"};
        if (!floating && (t.is_floating_point() || t.is_complex() || t.scalar_type() == torch::kBool))
            return Error{where(key) + " has dtype " + std::string(c10::toString(t.scalar_type())) +
                         "; expected an integer tensor"};
        if (floating) {
            auto f = t.detach().to(torch::kFloat32);
            if (!torch::isfinite(f).all().item<bool>()) return Error{where(key) + " holds NaN or inf"};
            return keepGraph ? t.to(torch::kFloat32) : f;
        }
        return t.detach().to(torch::kInt64);
    }

    // Each row over the last `dims` dimensions must be non-negative and sum to 1.
    Result<Unit> distributions(const std::string& key, const torch::Tensor& t, int dims) const {
        if (t.min().item<double>() < 0) return Error{where(key) + " has negative weights"};
        auto sums = t.flatten(t.dim() - dims).sum(-1);
        const auto worst = (sums - 1).abs().max().item<double>();
        if (worst > kScriptSumTolerance) {
            const auto flat = (sums - 1).abs().flatten().argmax().item<std::int64_t>();
            return Error{where(key) + " has a distribution that sums to " +
                         std::to_string(sums.flatten()[flat].item<double>()).substr(0, 8) + ", not 1 (tolerance " +
                         "1e-3)"};
        }
        return Unit{};
    }
};

}  // namespace

std::int64_t ScriptOutputs::steps() const {
    switch (form) {
        case ScriptForm::Grid: return attention.size(1);
        case ScriptForm::Glimpses: return locations.size(1);
        case ScriptForm::Transformer: return attentions.size(1);
    }
    return 0;
}

Result<ScriptOutputs> readScriptOutputs(const c10::IValue& value, std::int64_t batch, const std::string& method,
                                        bool keepGraph) {
    OutputReader r{method, {}, keepGraph};
    if (!value.isGenericDict())
        return Error{method + " returns " + value.tagKind() + ", not a Dict[str, Tensor] (see docs/model-contract.md)"};
    std::string keys;
    for (const auto& entry : value.toGenericDict()) {
        if (!entry.key().isString()) return Error{method + " returns a dict whose keys are not strings"};
        const auto& key = entry.key().toStringRef();
        if (!entry.value().isTensor()) return Error{r.where(key) + " is " + entry.value().tagKind() + ", not a tensor"};
        r.tensors[key] = entry.value().toTensor();
        keys += (keys.empty() ? "" : ", ") + key;
    }
    if (!r.tensors.count("logits"))
        return Error{method + " returns no 'logits' (its keys: " + (keys.empty() ? "none" : keys) + ")"};
    ScriptOutputs o;
    const auto& rawLogits = r.tensors["logits"];
    if (rawLogits.dim() != 2 && rawLogits.dim() != 3)
        return Error{r.where("logits") + " has shape " + shapeText(rawLogits) + "; expected [N, K] or [N, T, K]"};
    auto logits = r.get("logits", rawLogits.dim(), batch, "[N, K] or [N, T, K]");
    if (!logits) return Error{logits.error()};
    o.perStepLogits = logits->dim() == 3;
    o.logits = o.perStepLogits ? *logits : logits->unsqueeze(1);
    if (o.logits.size(2) < 2) return Error{r.where("logits") + " has " + std::to_string(o.logits.size(2)) + " class; expected at least 2"};

    const int forms = int(r.tensors.count("attention")) + int(r.tensors.count("locations")) + int(r.tensors.count("attentions"));
    if (forms == 0)
        return Error{method + " returns none of 'attention', 'locations' or 'attentions' (its keys: " + keys + ")"};
    if (forms > 1) return Error{method + " returns more than one of 'attention', 'locations' and 'attentions'; give one"};

    if (r.tensors.count("attention")) {
        o.form = ScriptForm::Grid;
        auto a = r.get("attention", 4, batch, "[N, T, h, w]");
        if (!a) return Error{a.error()};
        if (a->size(2) > kMaxGridSide || a->size(3) > kMaxGridSide)
            return Error{r.where("attention") + " has a " + std::to_string(a->size(2)) + "x" + std::to_string(a->size(3)) +
                         " grid; Saccade shows grids of at most " + std::to_string(kMaxGridSide) + " cells a side"};
        if (auto ok = r.distributions("attention", *a, 2); !ok) return Error{ok.error()};
        o.attention = *a;
        auto chosen = r.get("chosen", 2, batch, "[N, T]", /*floating=*/false);
        if (!chosen) return Error{chosen.error()};
        if (chosen->defined()) {
            const auto cells = a->size(2) * a->size(3);
            if (chosen->size(1) != a->size(1))
                return Error{r.where("chosen") + " has " + std::to_string(chosen->size(1)) + " steps; 'attention' has " +
                             std::to_string(a->size(1))};
            if ((*chosen < 0).any().item<bool>() || (*chosen >= cells).any().item<bool>())
                return Error{r.where("chosen") + " holds a cell outside 0.." + std::to_string(cells - 1)};
            o.chosen = *chosen;
        }
    } else if (r.tensors.count("locations")) {
        o.form = ScriptForm::Glimpses;
        auto l = r.get("locations", 3, batch, "[N, T, 2]");
        if (!l) return Error{l.error()};
        if (l->size(2) != 2) return Error{r.where("locations") + " has shape " + shapeText(*l) + "; expected [N, T, 2]"};
        if ((l->abs() > 1 + 1e-6).any().item<bool>()) return Error{r.where("locations") + " has centres outside [-1, 1]"};
        o.locations = *l;
        for (const char* key : {"location_mean", "location_std"}) {
            auto t = r.get(key, 3, batch, "[N, T, 2]");
            if (!t) return Error{t.error()};
            if (t->defined() && t->sizes() != l->sizes())
                return Error{r.where(key) + " has shape " + shapeText(*t) + "; 'locations' has " + shapeText(*l)};
            if (std::string(key) == "location_std") {
                if (t->defined() && (*t <= 0).any().item<bool>()) return Error{r.where(key) + " must be positive"};
                o.locationStd = *t;
            } else {
                o.locationMean = *t;
            }
        }
        auto g = r.get("glimpse_size", 2, batch, "[N, T]");
        if (!g) return Error{g.error()};
        if (g->defined()) {
            if (g->size(1) != l->size(1)) return Error{r.where("glimpse_size") + " has shape " + shapeText(*g) + "; expected [N, T]"};
            if ((*g <= 0).any().item<bool>() || (*g > 1).any().item<bool>())
                return Error{r.where("glimpse_size") + " must lie in (0, 1] (a fraction of the image side)"};
            o.glimpseSize = *g;
        }
    } else {
        o.form = ScriptForm::Transformer;
        auto a = r.get("attentions", 5, batch, "[N, layers, heads, tokens, tokens]");
        if (!a) return Error{a.error()};
        if (a->size(3) != a->size(4))
            return Error{r.where("attentions") + " has shape " + shapeText(*a) + "; its last two sizes (tokens) must agree"};
        if (a->size(3) > kMaxScriptTokens)
            return Error{r.where("attentions") + " has " + std::to_string(a->size(3)) + " tokens; Saccade reads at most " +
                         std::to_string(kMaxScriptTokens)};
        if (auto ok = r.distributions("attentions", *a, 1); !ok) return Error{ok.error()};
        o.attentions = *a;
    }
    if (o.form != ScriptForm::Transformer && o.steps() > kMaxScriptSteps)
        return Error{method + " answers with " + std::to_string(o.steps()) + " steps; Saccade shows at most " +
                     std::to_string(kMaxScriptSteps)};
    auto features = r.get("features", 4, batch, "[N, C, h, w]");
    if (!features) return Error{features.error()};
    o.features = *features;
    if (o.perStepLogits && o.form != ScriptForm::Transformer && o.logits.size(1) != o.steps())
        return Error{r.where("logits") + " has " + std::to_string(o.logits.size(1)) + " steps; the attention has " +
                     std::to_string(o.steps())};
    return o;
}

Result<Unit> sameScriptShapes(const ScriptOutputs& a, const ScriptOutputs& b, const std::string& methodB) {
    auto sizes = [](const ScriptOutputs& o) {
        const auto& t = o.form == ScriptForm::Grid ? o.attention : o.form == ScriptForm::Glimpses ? o.locations : o.attentions;
        return std::vector<std::int64_t>(t.sizes().begin() + 1, t.sizes().end());
    };
    if (a.form != b.form) return Error{methodB + " returns another form of attention than forward"};
    if (sizes(a) != sizes(b) || a.classes() != b.classes() || a.perStepLogits != b.perStepLogits)
        return Error{methodB + " returns other sizes than forward did (steps, grid, tokens or classes)"};
    return Unit{};
}

}  // namespace saccade
