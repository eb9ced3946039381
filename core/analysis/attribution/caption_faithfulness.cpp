#include "analysis/attribution/caption_faithfulness.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "metrics/attention_regions.h"
#include "metrics/caption_metrics.h"
#include "models/attention_model.h"
#include "trace/ground_truth.h"
#include "analysis/attribution/deletion_curves.h"
#include "analysis/attribution/faithfulness.h"
#include "common/seed_mix.h"
#include "io/shard_json.h"

namespace saccade {

namespace {
constexpr std::uint64_t kRandomCellsStream = 0xca9de1;
}  // namespace

Result<CaptionFaithfulness> measureCaptionFaithfulness(AttentionModel& model, const Dataset& dataset, Split split,
                                                       const CaptionFaithfulnessOptions& o, const Progress& progress) {
    if (!traitsOf(model.outputKind()).wordSteps) return Error{"caption faithfulness needs a captioner"};
    if (o.limit < 1) return Error{"caption faithfulness: the scene count must be positive"};
    for (double f : o.fractions)
        if (!std::isfinite(f) || f < 0 || f > 1) return Error{"caption faithfulness: fractions must lie in [0, 1]"};
    const auto& info = dataset.info();
    const std::int64_t n = std::min(o.limit, dataset.size(split));
    if (n < 1 || dataset.sample(split, 0).captionWords.empty())
        return Error{"dataset " + info.name + " has no captions: caption faithfulness reads scenes64 or scenes96"};
    // The model's own greedy rule, as the caption sweep reads it: soft for a soft captioner.
    const std::string rule = !o.rule.empty() ? o.rule : model.unsampledRule();
    const auto start = std::chrono::steady_clock::now();
    // Each scene's figures depend on its index alone (its random cells too), so a shard computes
    // exactly its scenes' share of the unsharded sums.
    const auto range = shardRange(o.shard, n);
    CaptionFaithfulnessSums r;
    r.keptAttended.assign(o.fractions.size(), 0);
    r.keptRandom.assign(o.fractions.size(), 0);
    for (std::int64_t i = range.begin; i < range.end; ++i) {
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
            r.mass.add(std::min(1.0, gridMassInBox(grid, w, h, box)));
            r.area.add(box.w * box.h / double(w * h));
            // The cells of this word's step, most attended first, and a seeded random order.
            const int cells = grid.rows * grid.cols;
            const std::vector<int> byAttention =
                cellsByImportance(std::vector<double>(grid.probs.begin(), grid.probs.end()));
            const std::vector<int> byChance =
                randomCellOrder(cells, mixSeed(o.seed, kRandomCellsStream, std::uint64_t(i) * 1024 + s));
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
                    (order == 0 ? r.keptAttended : r.keptRandom)[f] += kept ? 1 : 0;
                }
            }
        }
        if (progress && !progress(double(i + 1 - range.begin) / double(std::max<std::int64_t>(1, range.size()))))
            return Error{"the caption faithfulness measurement was cancelled"};
    }
    // A shard may hold no object word; the whole run must.
    if (r.words == 0 && !o.shard.active()) return Error{"no caption named an object: nothing to measure"};
    auto report = captionFaithfulnessFromSums(r, o.fractions, info.name, rule);
    report.shard = o.shard;
    report.begin = range.begin;
    report.total = n;
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

void CaptionFaithfulnessSums::add(const CaptionFaithfulnessSums& o) {
    images += o.images;
    words += o.words;
    if (o.words > 0) {
        rows = o.rows;
        cols = o.cols;
    }
    mass.add(o.mass);
    area.add(o.area);
    for (std::size_t f = 0; f < keptAttended.size() && f < o.keptAttended.size(); ++f) {
        keptAttended[f] += o.keptAttended[f];
        keptRandom[f] += o.keptRandom[f];
    }
}

CaptionFaithfulness captionFaithfulnessFromSums(const CaptionFaithfulnessSums& s, const std::vector<double>& fractions,
                                                const std::string& dataset, const std::string& rule) {
    CaptionFaithfulness r;
    r.dataset = dataset;
    r.rule = rule;
    r.images = s.images;
    r.words = s.words;
    r.rows = s.rows;
    r.cols = s.cols;
    const double words = double(std::max<std::int64_t>(1, s.words));
    r.massOnObject = s.mass.value() / words;
    r.uniformMass = s.area.value() / words;
    for (std::size_t f = 0; f < fractions.size() && f < s.keptAttended.size(); ++f)
        r.deletion.push_back({fractions[f], double(s.keptAttended[f]) / words, double(s.keptRandom[f]) / words});
    r.sums = s;
    return r;
}

std::string captionFaithfulnessToJson(const CaptionFaithfulness& r, int indent) {
    nlohmann::json deletion = nlohmann::json::array();
    for (const auto& d : r.deletion)
        deletion.push_back({{"fraction", d.fraction}, {"kept_attended", d.keptAttended}, {"kept_random", d.keptRandom}});
    nlohmann::json j{{"schema", "saccade.caption-faithfulness"},
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
                     {"seconds", r.seconds}};
    if (r.shard.active()) {
        const auto& s = r.sums;
        j["shard"] = shardHeader("caption-faithfulness", r.shard, r.begin, r.begin + s.images, r.total, r.fingerprint);
        j["sums"] = {{"images", s.images},         {"words", s.words},
                     {"grid", {s.rows, s.cols}},   {"mass_units", s.mass.units()},
                     {"area_units", s.area.units()}, {"kept_attended", s.keptAttended},
                     {"kept_random", s.keptRandom}};
    }
    return j.dump(indent);
}

Result<CaptionFaithfulnessSums> captionFaithfulnessSumsFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("sums"))
        return Error{"not a sharded caption faithfulness measurement"};
    try {
        const auto& u = j.at("sums");
        CaptionFaithfulnessSums s;
        s.images = u.at("images");
        s.words = u.at("words");
        s.rows = u.at("grid").at(0);
        s.cols = u.at("grid").at(1);
        s.mass = ExactSum::fromUnits(u.at("mass_units"));
        s.area = ExactSum::fromUnits(u.at("area_units"));
        s.keptAttended = u.at("kept_attended").get<std::vector<std::int64_t>>();
        s.keptRandom = u.at("kept_random").get<std::vector<std::int64_t>>();
        if (s.keptAttended.size() != s.keptRandom.size() || s.keptAttended.size() != j.at("deletion").size())
            return Error{"a damaged caption faithfulness shard: its sums differ in length"};
        if (s.images < 0 || s.words < 0) return Error{"a damaged caption faithfulness shard: negative counts"};
        for (std::size_t f = 0; f < s.keptAttended.size(); ++f)
            if (s.keptAttended[f] < 0 || s.keptAttended[f] > s.words || s.keptRandom[f] < 0 || s.keptRandom[f] > s.words)
                return Error{"a damaged caption faithfulness shard: more words kept than scored"};
        return s;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("a damaged caption faithfulness shard: ") + firstLine(e.what())};
    }
}

}  // namespace saccade
