#include "analysis/attribution/caption_attribution.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/attribution/faithfulness.h"
#include "analysis/attribution/image_maps.h"
#include "metrics/attention_regions.h"
#include "metrics/caption_metrics.h"
#include "trace/ground_truth.h"

namespace saccade {

namespace {

// The words scored, as the caption's attention faithfulness scores them: size, colour and shape
// words that name an object of the scene.
bool isScoredObjectWord(const TraceStep& step, const GroundTruth& truth) {
    const auto c = sceneWordClass(step.token);
    return step.grid && step.wordObject >= 0 && step.wordObject < int(truth.boxes.size()) &&
           (c == WordClass::Size || c == WordClass::Colour || c == WordClass::Shape);
}

Result<Unit> checkCaptionMapMethod(const AttentionModel& model, const std::string& method) {
    if (method == "attention") return Unit{};
    const auto& all = attributionMethods();
    if (std::find(all.begin(), all.end(), method) != all.end()) return Unit{};
    if (method == "rollout") return Error{model.displayName() + " has no rollout (it is not a transformer)"};
    return Error{"unknown map '" + method + "'"};
}

}  // namespace

Result<CaptionAttributionReport> compareCaptionMaps(AttentionModel& model, const Dataset& dataset, Split split,
                                                    const CaptionAttributionOptions& o, const Progress& progress) {
    if (!traitsOf(model.outputKind()).wordSteps)
        return Error{model.displayName() + " outputs a class, not words: its maps are compared image by image"};
    if (o.methods.empty()) return Error{"--methods: give a comma-separated list of maps"};
    CaptionAttributionReport r;
    auto selection = selectMethods(o.methods, [&model](const std::string& m) { return checkCaptionMapMethod(model, m); });
    std::vector<std::string> methods = std::move(selection.kept);  // the rest are left out with the reason
    r.omitted = std::move(selection.omitted);
    if (methods.empty()) return Error{r.omitted.front().second};
    if (o.limit < 1) return Error{"the scene count must be positive"};
    const std::int64_t n = std::min(o.limit, dataset.size(split));
    if (n < 1 || dataset.sample(split, 0).captionWords.empty())
        return Error{"dataset " + dataset.info().name + " has no captions: word attribution reads scenes64 or scenes96"};
    const auto rules = model.evaluationRules();
    const std::string rule = !o.rule.empty() ? o.rule : rules.empty() ? model.deterministicRule() : rules.front();
    const auto start = std::chrono::steady_clock::now();
    r.dataset = dataset.info().name;
    r.rule = rule;
    r.rows = r.cols = model.cellGrid().side > 0 ? model.cellGrid().side : o.attribution.cellsPerSide;
    std::vector<double> mass(methods.size(), 0), hits(methods.size(), 0), seconds(methods.size(), 0);
    std::vector<double> completeness(methods.size(), 0), worst(methods.size(), 0);
    std::vector<std::int64_t> measured(methods.size(), 0);
    double area = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const Sample sample = dataset.sample(split, i);
        const GroundTruth truth = sceneGroundTruth(sample);
        const std::string id = r.dataset + ":" + splitName(split) + ":" + std::to_string(i);
        auto t = model.trace(sample.image, rule, o.seed, id, truth);
        if (!t) return Error{t.error()};
        ++r.images;
        const int w = sample.image.width, h = sample.image.height;
        for (std::size_t s = 0; s < t->steps.size(); ++s) {
            const TraceStep& step = t->steps[s];
            if (!isScoredObjectWord(step, truth)) continue;
            const Box& box = truth.boxes[size_t(step.wordObject)];
            ++r.words;
            area += std::max(0.0, Box{0, 0, double(w), double(h)}.intersectionArea(box)) / (double(w) * h);
            for (std::size_t m = 0; m < methods.size(); ++m) {
                const auto began = std::chrono::steady_clock::now();
                if (methods[m] == "attention") {
                    mass[m] += std::min(1.0, gridMassInBox(*step.grid, w, h, box));
                    hits[m] += pointsAt(step, w, h, box) ? 1 : 0;
                } else {
                    AttributionOptions a = o.attribution;
                    a.method = methods[m];
                    a.rule = rule;
                    a.seed = o.seed;
                    a.step = int(s);
                    a.target.reset();
                    auto map = attribute(model, sample.image, a, truth);
                    if (!map && r.words == 1 && methods.size() > 1) {  // the first word: the model cannot give this map
                        r.omitted.push_back({methods[m], map.error()});
                        for (auto* v : {&mass, &hits, &seconds, &completeness, &worst}) v->erase(v->begin() + std::ptrdiff_t(m));
                        measured.erase(measured.begin() + std::ptrdiff_t(m));
                        methods.erase(methods.begin() + std::ptrdiff_t(m));
                        --m;
                        continue;
                    }
                    if (!map) return Error{map.error()};
                    if (map->object != step.wordObject || !map->massInBox)
                        return Error{"the attribution of '" + step.token + "' in " + id + " was scored on another object"};
                    mass[m] += *map->massInBox;
                    hits[m] += *map->pointing ? 1 : 0;
                    if (map->completenessError) {
                        completeness[m] += *map->completenessError;
                        worst[m] = std::max(worst[m], *map->completenessError);
                        ++measured[m];
                    }
                }
                seconds[m] += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
            }
        }
        if (progress && !progress(double(i + 1) / double(n))) return Error{"the word attribution measurement was cancelled"};
    }
    if (r.words == 0)
        return Error{"no word of " + model.displayName() + "'s captions was matched to an object of its scene (the box "
                     "each map is scored on): nothing to measure"};
    const double words = double(r.words);
    r.uniformMass = area / words;
    for (std::size_t m = 0; m < methods.size(); ++m) {
        CaptionMapFigures f;
        f.method = methods[m];
        f.words = r.words;
        f.massOnObject = mass[m] / words;
        f.pointing = hits[m] / words;
        if (measured[m] > 0) {
            f.completenessError = completeness[m] / double(measured[m]);
            f.maxCompletenessError = worst[m];
        }
        f.seconds = seconds[m];
        r.maps.push_back(f);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

std::string captionAttributionToJson(const CaptionAttributionReport& r, int indent) {
    auto orNull = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json omitted = nlohmann::json::array();
    for (const auto& [method, reason] : r.omitted) omitted.push_back({{"method", method}, {"reason", reason}});
    nlohmann::json maps = nlohmann::json::array();
    for (const auto& m : r.maps)
        maps.push_back({{"method", m.method},
                        {"object_words", m.words},
                        {"mass_on_object", m.massOnObject},
                        {"pointing", m.pointing},
                        {"completeness_error", orNull(m.completenessError)},
                        {"max_completeness_error", orNull(m.maxCompletenessError)},
                        {"seconds", m.seconds}});
    nlohmann::json j{{"schema", "saccade.caption-attribution"},
                     {"version", 1},
                     {"caveat", kAttentionCaveat},
                     {"dataset", r.dataset},
                     {"rule", r.rule},
                     {"images", r.images},
                     {"object_words", r.words},
                     {"grid", {{"rows", r.rows}, {"cols", r.cols}}},
                     {"uniform_mass", r.uniformMass},
                     {"maps", maps},
                     {"omitted", omitted},
                     {"seconds", r.seconds}};
    return j.dump(indent);
}

}  // namespace saccade
