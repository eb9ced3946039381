#include "analysis/attribution/sanity_check.h"

#include <torch/torch.h>

#include "analysis/attribution/weight_randomisation.h"
#include "models/gradient_forward.h"

namespace saccade {

namespace {

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
        SanitySums sums;
        for (size_t i = 0; i < trained[m].size(); ++i) sums.add(trained[m][i], now[m][i]);
        curves[m].images = sums.counted;
        curves[m].steps.push_back(sums.step(layer));
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
    const auto step = [&](const std::string& group) -> Result<Unit> {
        auto now = allMaps(model, images, targets, methods, settings);
        if (!now) return Error{now.error()};
        addStep(curves, group, *trained, *now);
        return Unit{};
    };
    if (auto done = randomisationCascade(groups, [f] { f->weightsChanged(); }, seed, step, progress); !done)
        return Error{done.error()};
    for (auto& c : curves) finishSanityCurve(c, threshold);
    return curves;
}

}  // namespace saccade
