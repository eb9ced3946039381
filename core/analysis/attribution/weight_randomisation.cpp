#include "analysis/attribution/weight_randomisation.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "analysis/attribution/faithfulness.h"
#include "analysis/attribution/image_maps.h"

namespace saccade {

WeightRestorer::WeightRestorer(const std::vector<ParameterGroup>& groups,
                               std::function<void()> changed)
    : m_changed(std::move(changed)) {
    torch::NoGradGuard noGrad;
    for (const auto& g : groups)
        for (const auto& t : g.tensors) m_saved.emplace_back(t, t.detach().clone());
}

WeightRestorer::~WeightRestorer() {
    torch::NoGradGuard noGrad;
    for (auto& [live, saved] : m_saved) live.copy_(saved);
    if (m_changed) m_changed();
}

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

void SanitySums::add(const std::vector<double>& trained, const std::vector<double>& now) {
    if (flatMap(trained)) return;
    spearman += saccade::spearman(trained, now);
    pearson += saccade::pearson(trained, now);
    ++counted;
}

SanityStep SanitySums::step(const std::string& layer) const {
    SanityStep s{layer, 0, 0};
    if (counted > 0) s.spearman = spearman / double(counted), s.pearson = pearson / double(counted);
    return s;
}

void finishSanityCurve(SanityCurve& c, double threshold) {
    if (c.images <= 0 || c.steps.empty()) return;
    c.finalSpearman = c.steps.back().spearman;
    c.finalPearson = c.steps.back().pearson;
    c.flagged = *c.finalSpearman > threshold;
}

Result<Unit> randomisationCascade(const std::vector<ParameterGroup>& groups, const std::function<void()>& changed,
                                  std::uint64_t seed, const std::function<Result<Unit>(const std::string&)>& step,
                                  const Progress& progress) {
    try {
        WeightRestorer restorer(groups, changed);
        Rng rng(seed);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            randomiseGroup(groups[g], rng);
            changed();
            if (auto added = step(groups[g].name); !added)
                return Error{"after randomising " + groups[g].name + ", " + added.error()};
            if (progress && !progress(double(g + 1) / double(groups.size()))) return Error{"the sanity check was cancelled"};
        }
    } catch (const c10::Error& e) {
        const std::string what = e.what_without_backtrace();
        return Error{"the sanity check failed: " + what.substr(0, what.find('\n'))};
    }
    return Unit{};
}

}  // namespace saccade
