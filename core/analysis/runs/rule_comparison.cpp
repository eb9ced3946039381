#include "analysis/runs/rule_comparison.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "metrics/attention_regions.h"
#include "models/model_input.h"
#include "trace/ground_truth.h"

namespace saccade {

namespace {

constexpr int kGaussianGrid = 10;  // cells per side for a map without a grid of its own

struct RuleSums {
    std::int64_t right = 0, hits = 0;
    double mass = 0;
};

// The most attended cell of a step on rows x cols cells.
int peakOf(const TraceStep& step, int width, int height, int rows, int cols) {
    const auto map = attentionOnGrid(step, width, height, rows, cols);
    return map.empty() ? -1 : int(std::max_element(map.begin(), map.end()) - map.begin());
}

void finishComparison(RuleComparison& c, const std::vector<RuleSums>& sums) {
    for (size_t r = 0; r < c.rules.size(); ++r) {
        auto& f = c.rules[r];
        f.accuracy = wilsonAccuracy(f.rule, sums[r].right, c.images);
        if (c.boxed > 0) {
            f.massInBox = sums[r].mass / double(c.boxed);
            f.pointing = double(sums[r].hits) / double(c.boxed);
        }
    }
    for (size_t a = 0; a < c.rules.size(); ++a)
        for (size_t b = a + 1; b < c.rules.size(); ++b) {
            RuleAgreement g{c.rules[a].rule, c.rules[b].rule};
            for (size_t i = 0; i < c.peaks[a].size(); ++i) g.same += c.peaks[a][i] == c.peaks[b][i] ? 1 : 0;
            g.fraction = c.images ? double(g.same) / double(c.images) : 0.0;
            c.agreement.push_back(g);
        }
}

}  // namespace

std::vector<std::string> defaultRuleComparisonRules(const AttentionModel& model) {
    const RuleMenu menu = model.ruleMenu();
    std::vector<std::string> rules{model.deterministicRule()};
    for (const auto& rule : menu.rules) {
        const auto range = menu.ranges.find(rule);
        const std::string spec = range == menu.ranges.end() ? rule : rule + ":" + std::to_string(range->second.first);
        if (std::find(rules.begin(), rules.end(), spec) == rules.end()) rules.push_back(spec);
    }
    return rules;
}

Result<RuleComparison> compareRulesOnDataset(AttentionModel& model, const Dataset& dataset, Split split,
                                             const std::vector<std::string>& rules, std::int64_t limit,
                                             std::uint64_t seed, const Progress& progress) {
    if (rules.empty()) return Error{"no rule to compare (give --rules RULE,RULE)"};
    if (limit < 0) return Error{"the image limit must be 0 (all) or more"};
    if (auto fits = checkDatasetFits(dataset.info(), model.imageSize(), model.channels()); !fits) return Error{fits.error()};
    const std::int64_t n = limit > 0 ? std::min(limit, dataset.size(split)) : dataset.size(split);
    if (n == 0) return Error{"the " + std::string(splitName(split)) + " split of " + dataset.info().name + " is empty"};
    const auto start = std::chrono::steady_clock::now();
    RuleComparison c;
    c.dataset = dataset.info().name;
    c.split = splitName(split);
    c.deterministicRule = model.deterministicRule();
    c.seed = seed;
    for (const auto& rule : rules) c.rules.push_back({rule, {}, {}, {}});
    c.answers.assign(rules.size(), {});
    c.peaks.assign(rules.size(), {});
    std::vector<RuleSums> sums(rules.size());
    for (std::int64_t i = 0; i < n; ++i) {
        const Sample sample = dataset.sample(split, i);
        const bool boxed = sample.box.w > 0 && sample.box.h > 0;
        const int w = sample.image.width, h = sample.image.height;
        const std::string id = c.dataset + ":" + c.split + ":" + std::to_string(i);
        for (size_t r = 0; r < rules.size(); ++r) {
            auto t = model.trace(sample.image, rules[r], seed, id, sampleGroundTruth(sample));
            if (!t) return Error{"'" + rules[r] + "' on image " + std::to_string(i) + ": " + t.error()};
            if (t->steps.empty()) return Error{"'" + rules[r] + "' gave a trace without steps"};
            const TraceStep& last = t->steps.back();
            if (c.rows == 0) {
                c.rows = last.grid ? last.grid->rows : kGaussianGrid;
                c.cols = last.grid ? last.grid->cols : kGaussianGrid;
            }
            c.answers[r].push_back(t->output.label);
            c.peaks[r].push_back(peakOf(last, w, h, c.rows, c.cols));
            sums[r].right += t->output.label == sample.label ? 1 : 0;
            if (boxed) {
                sums[r].mass += std::max(0.0, stepMassInBox(last, w, h, sample.box));
                sums[r].hits += pointsAt(last, w, h, sample.box) ? 1 : 0;
            }
        }
        c.labels.push_back(sample.label);
        ++c.images;
        c.boxed += boxed ? 1 : 0;
        if (progress && !progress(double(i + 1) / double(n))) return Error{"the comparison was cancelled"};
    }
    finishComparison(c, sums);
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
}

std::string ruleComparisonToJson(const RuleComparison& c, int indent) {
    using nlohmann::json;
    const auto orNull = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    json rules = json::array(), agreement = json::array();
    for (size_t r = 0; r < c.rules.size(); ++r) {
        const auto& f = c.rules[r];
        rules.push_back({{"rule", f.rule},
                         {"correct", f.accuracy.correct},
                         {"n", f.accuracy.n},
                         {"accuracy", f.accuracy.accuracy},
                         {"low", f.accuracy.low},
                         {"high", f.accuracy.high},
                         {"mass_in_box", orNull(f.massInBox)},
                         {"pointing", orNull(f.pointing)},
                         {"predictions", c.answers[r]},
                         {"peak_cells", c.peaks[r]}});
    }
    for (const auto& g : c.agreement)
        agreement.push_back({{"rules", {g.first, g.second}}, {"same_peak", g.same}, {"fraction", g.fraction}});
    json j{{"schema", "saccade.compare-rules"},
           {"version", 1},
           {"dataset", c.dataset},
           {"split", c.split},
           {"images", c.images},
           {"boxed_images", c.boxed},
           {"deterministic_rule", c.deterministicRule},
           {"seed", c.seed},
           {"step", "last"},
           {"grid", {c.rows, c.cols}},
           {"labels", c.labels},
           {"rules", rules},
           {"peak_agreement", agreement},
           {"seconds", c.seconds}};
    return j.dump(indent);
}

}  // namespace saccade
