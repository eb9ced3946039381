#include "analysis/sanity_check.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "analysis/faithfulness.h"
#include "common/rng.h"
#include "models/gradient_forward.h"

namespace saccade {

namespace {

// The trained weights, copied back when the check ends however it ends.
class WeightRestorer {
public:
    WeightRestorer(GradientForward& f, const std::vector<ParameterGroup>& groups) : m_f(f) {
        torch::NoGradGuard noGrad;
        for (const auto& g : groups)
            for (const auto& t : g.tensors) m_saved.emplace_back(t, t.detach().clone());
    }
    ~WeightRestorer() {
        torch::NoGradGuard noGrad;
        for (auto& [live, saved] : m_saved) live.copy_(saved);
        m_f.weightsChanged();
    }
    WeightRestorer(const WeightRestorer&) = delete;
    WeightRestorer& operator=(const WeightRestorer&) = delete;

private:
    GradientForward& m_f;
    std::vector<std::pair<torch::Tensor, torch::Tensor>> m_saved;
};

// Each tensor from N(its mean, its std^2), drawn on the CPU so a seed gives the same weights on
// every device.
void randomiseGroup(const ParameterGroup& group, Rng& rng) {
    torch::NoGradGuard noGrad;
    for (const auto& t : group.tensors) {
        const auto values = t.detach().to(torch::kCPU, torch::kDouble);
        const double mean = values.mean().item<double>();
        double sd = values.numel() > 1 ? values.std().item<double>() : 0.0;
        if (!(sd > 0)) sd = std::abs(mean) > 0 ? std::abs(mean) : 1.0;
        const auto noise = rng.normal(t.sizes(), torch::kCPU).to(torch::kDouble) * sd + mean;
        t.copy_(noise.to(t.device(), t.scalar_type()));
    }
}

bool flatMap(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

// Every method's map of every image: maps[method][image].
Result<std::vector<std::vector<std::vector<double>>>> allMaps(AttentionModel& model, const std::vector<Image>& images,
                                                              const std::vector<int>& targets,
                                                              const std::vector<std::string>& methods,
                                                              const MapSettings& settings) {
    std::vector<std::vector<std::vector<double>>> maps(methods.size());
    for (size_t m = 0; m < methods.size(); ++m)
        for (size_t i = 0; i < images.size(); ++i) {
            auto map = imageMap(model, methods[m], images[i], targets[i], settings);
            if (!map) return Error{methods[m] + ": " + map.error()};
            maps[m].push_back(std::move(*map));
        }
    return maps;
}

// One step's correlations of each method's maps against the trained ones.
void addStep(std::vector<SanityCurve>& curves, const std::string& layer,
             const std::vector<std::vector<std::vector<double>>>& trained,
             const std::vector<std::vector<std::vector<double>>>& now) {
    for (size_t m = 0; m < curves.size(); ++m) {
        SanityStep step{layer, 0, 0};
        std::int64_t counted = 0;
        for (size_t i = 0; i < trained[m].size(); ++i) {
            if (flatMap(trained[m][i])) continue;
            step.spearman += spearman(trained[m][i], now[m][i]);
            step.pearson += pearson(trained[m][i], now[m][i]);
            ++counted;
        }
        if (counted > 0) step.spearman /= double(counted), step.pearson /= double(counted);
        curves[m].images = counted;
        curves[m].steps.push_back(step);
    }
}

}  // namespace

Result<std::vector<SanityCurve>> sanityCheck(AttentionModel& model, const std::vector<Image>& images,
                                             const std::vector<int>& targets, const std::vector<std::string>& methods,
                                             const MapSettings& settings, std::uint64_t seed, double threshold,
                                             const Progress& progress) {
    GradientForward* f = model.gradientForward();
    const auto groups = f ? f->parameterGroups() : std::vector<ParameterGroup>{};
    if (groups.empty()) return Error{model.displayName() + " offers no parameter groups for the sanity check"};
    if (images.size() != targets.size()) return Error{"the sanity check needs one target per image"};
    auto trained = allMaps(model, images, targets, methods, settings);
    if (!trained) return Error{trained.error()};
    std::vector<SanityCurve> curves(methods.size());
    for (size_t m = 0; m < methods.size(); ++m) curves[m].method = methods[m];
    try {
        WeightRestorer restorer(*f, groups);
        Rng rng(seed);
        for (size_t g = 0; g < groups.size(); ++g) {
            randomiseGroup(groups[g], rng);
            f->weightsChanged();
            auto now = allMaps(model, images, targets, methods, settings);
            if (!now) return Error{"after randomising " + groups[g].name + ", " + now.error()};
            addStep(curves, groups[g].name, *trained, *now);
            if (progress && !progress(double(g + 1) / double(groups.size()))) return Error{"the sanity check was cancelled"};
        }
    } catch (const c10::Error& e) {
        const std::string what = e.what_without_backtrace();
        return Error{"the sanity check failed: " + what.substr(0, what.find('\n'))};
    }
    for (auto& c : curves)
        if (c.images > 0) {
            c.finalSpearman = c.steps.back().spearman;
            c.finalPearson = c.steps.back().pearson;
            c.flagged = *c.finalSpearman > threshold;
        }
    return curves;
}

}  // namespace saccade
