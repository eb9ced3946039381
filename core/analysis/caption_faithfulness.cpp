#include "analysis/caption_faithfulness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "analysis/attention_regions.h"
#include "analysis/caption_metrics.h"
#include "analysis/faithfulness.h"
#include "common/seed_mix.h"
#include "models/caption_model.h"

namespace saccade {

namespace {
constexpr std::uint64_t kRandomCellsStream = 0xca9de1;
}  // namespace

Result<CaptionFaithfulness> measureCaptionFaithfulness(AttentionModel& model, const Dataset& dataset, Split split,
                                                       const CaptionFaithfulnessOptions& o, const Progress& progress) {
    if (model.info().modelType != "caption") return Error{"caption faithfulness needs a captioner"};
    if (o.limit < 1) return Error{"caption faithfulness: the scene count must be positive"};
    for (double f : o.fractions)
        if (!std::isfinite(f) || f < 0 || f > 1) return Error{"caption faithfulness: fractions must lie in [0, 1]"};
    const auto& info = dataset.info();
    const std::int64_t n = std::min(o.limit, dataset.size(split));
    if (n < 1 || dataset.sample(split, 0).captionWords.empty())
        return Error{"dataset " + info.name + " has no captions: caption faithfulness reads scenes64 or scenes96"};
    // The model's own greedy rule, as the caption sweep reads it: soft for a soft captioner.
    const std::string rule = !o.rule.empty() ? o.rule : model.trainedMode() == "soft" ? "soft" : "argmax";
    const auto start = std::chrono::steady_clock::now();
    CaptionFaithfulness r;
    r.dataset = info.name;
    r.rule = rule;
    std::vector<std::int64_t> keptAttended(o.fractions.size(), 0), keptRandom(o.fractions.size(), 0);
    double mass = 0, area = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const Sample sample = dataset.sample(split, i);
        const GroundTruth truth = sceneGroundTruth(sample);
        const std::string id = info.name + ":" + splitName(split) + ":" + std::to_string(i);
        auto t = model.trace(sample.image, rule, o.seed, id, truth);
        if (!t) return Error{t.error()};
        ++r.images;
        const int w = sample.image.width, h = sample.image.height;
        for (std::size_t s = 0; s < t->steps.size(); ++s) {
            const auto& step = t->steps[s];
            const auto wordClass = sceneWordClass(step.token);
            if (!step.grid || step.wordObject < 0 || step.wordObject >= int(truth.boxes.size()) ||
                (wordClass != WordClass::Size && wordClass != WordClass::Colour && wordClass != WordClass::Shape))
                continue;
            const auto& grid = *step.grid;
            r.rows = grid.rows;
            r.cols = grid.cols;
            const Box& box = truth.boxes[size_t(step.wordObject)];
            ++r.words;
            mass += std::min(1.0, gridMassInBox(grid, w, h, box));
            area += box.w * box.h / double(w * h);
            // The cells of this word's step, most attended first, and a seeded random order.
            const int cells = grid.rows * grid.cols;
            std::vector<int> byAttention(static_cast<size_t>(cells)), byChance(static_cast<size_t>(cells));
            std::iota(byAttention.begin(), byAttention.end(), 0);
            std::iota(byChance.begin(), byChance.end(), 0);
            std::stable_sort(byAttention.begin(), byAttention.end(),
                             [&](int a, int b) { return grid.probs[size_t(a)] > grid.probs[size_t(b)]; });
            std::mt19937_64 random(mixSeed(o.seed, kRandomCellsStream, std::uint64_t(i) * 1024 + s));
            std::shuffle(byChance.begin(), byChance.end(), random);
            for (std::size_t f = 0; f < o.fractions.size(); ++f) {
                const auto k = long(std::lround(o.fractions[f] * cells));
                for (int order = 0; order < 2; ++order) {
                    bool kept = true;  // nothing occluded: the caption is the one traced
                    if (k > 0) {
                        const auto& chosen = order == 0 ? byAttention : byChance;
                        auto after = model.trace(occludeCells(sample.image, grid.rows, grid.cols,
                                                              std::vector<int>(chosen.begin(), chosen.begin() + k)),
                                                 rule, o.seed, id + ":occluded");
                        if (!after) return Error{after.error()};
                        const auto words = splitWords(after->output.text);
                        kept = std::find(words.begin(), words.end(), step.token) != words.end();
                    }
                    (order == 0 ? keptAttended : keptRandom)[f] += kept ? 1 : 0;
                }
            }
        }
        if (progress && !progress(double(i + 1) / double(n))) return Error{"the caption faithfulness measurement was cancelled"};
    }
    if (r.words == 0) return Error{"no caption named an object: nothing to measure"};
    r.massOnObject = mass / double(r.words);
    r.uniformMass = area / double(r.words);
    for (std::size_t f = 0; f < o.fractions.size(); ++f)
        r.deletion.push_back({o.fractions[f], double(keptAttended[f]) / double(r.words),
                              double(keptRandom[f]) / double(r.words)});
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

std::string captionFaithfulnessToJson(const CaptionFaithfulness& r, int indent) {
    nlohmann::json deletion = nlohmann::json::array();
    for (const auto& d : r.deletion)
        deletion.push_back({{"fraction", d.fraction}, {"kept_attended", d.keptAttended}, {"kept_random", d.keptRandom}});
    return nlohmann::json{{"schema", "saccade.caption-faithfulness"},
                          {"version", 1},
                          {"caveat", kAttentionCaveat},
                          {"dataset", r.dataset},
                          {"rule", r.rule},
                          {"images", r.images},
                          {"object_words", r.words},
                          {"grid", {{"rows", r.rows}, {"cols", r.cols}}},
                          {"mass_on_object", r.massOnObject},
                          {"uniform_mass", r.uniformMass},
                          {"deletion", deletion},
                          {"seconds", r.seconds}}
        .dump(indent);
}

}  // namespace saccade
