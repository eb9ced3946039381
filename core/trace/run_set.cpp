#include "trace/run_set.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "common/words.h"

namespace saccade {

namespace {

using nlohmann::json;

// The visit cell of a run's step: its chosen cell, or the bin its glimpse centre falls in.
int visitCell(const RunSet& set, const RunRecord& run, int step, int rows, int cols) {
    if (set.gridRows > 0) return step < int(run.cells.size()) ? run.cells[size_t(step)] : -1;
    if (step >= int(run.points.size())) return -1;
    const auto& p = run.points[size_t(step)];
    const int bx = std::clamp(int(p[0] / set.imageWidth * cols), 0, cols - 1);
    const int by = std::clamp(int(p[1] / set.imageHeight * rows), 0, rows - 1);
    return by * cols + bx;
}

json traceJson(const Trace& t) { return json::parse(traceToJson(t, -1)); }

}  // namespace

RunStats computeRunStats(const RunSet& set, int bins) {
    RunStats s;
    s.runs = int(set.runs.size());
    const int classes = int(set.classNames.size());
    s.labelCounts.assign(size_t(std::max(classes, 1)), 0);
    s.deterministicLabel = set.deterministic.output.label;
    s.visitRows = set.gridRows > 0 ? set.gridRows : bins;
    s.visitCols = set.gridCols > 0 ? set.gridCols : bins;
    s.visits.assign(size_t(set.steps), std::vector<double>(size_t(s.visitRows * s.visitCols), 0.0));
    s.entropyMean.assign(size_t(set.steps), 0.0);
    s.entropyStd.assign(size_t(set.steps), 0.0);
    std::vector<int> entropyCount(size_t(set.steps), 0);  // runs with an entropy at each step (NaN: none)
    if (set.runs.empty()) return s;

    int agree = 0, right = 0;
    bool judged = bool(set.truth);
    std::map<std::vector<int>, size_t> pathIndex;
    for (int r = 0; r < s.runs; ++r) {
        const auto& run = set.runs[size_t(r)];
        if (run.label >= 0 && run.label < int(s.labelCounts.size())) ++s.labelCounts[size_t(run.label)];
        agree += run.label == s.deterministicLabel;
        const bool correct = run.correct >= 0 ? run.correct == 1 : set.truth && run.label == *set.truth;
        judged = judged || run.correct >= 0;
        right += correct;
        std::vector<int> key;
        for (int t = 0; t < set.steps; ++t) {
            const int cell = visitCell(set, run, t, s.visitRows, s.visitCols);
            key.push_back(cell);
            if (cell >= 0) s.visits[size_t(t)][size_t(cell)] += 1;  // counts; fractions below
            if (t < int(run.entropy.size()) && !std::isnan(run.entropy[size_t(t)])) {
                s.entropyMean[size_t(t)] += run.entropy[size_t(t)];
                ++entropyCount[size_t(t)];
            }
        }
        auto [it, inserted] = pathIndex.try_emplace(key, s.paths.size());
        if (inserted) {
            PathCount p;
            p.key = key;
            p.firstRun = r;
            p.labels.assign(s.labelCounts.size(), 0);
            s.paths.push_back(std::move(p));
        }
        auto& path = s.paths[it->second];
        ++path.count;
        path.correct += correct;
        if (run.label >= 0 && run.label < int(path.labels.size())) ++path.labels[size_t(run.label)];
    }
    for (int t = 0; t < set.steps; ++t)
        s.entropyMean[size_t(t)] = entropyCount[size_t(t)] ? s.entropyMean[size_t(t)] / entropyCount[size_t(t)]
                                                           : std::numeric_limits<double>::quiet_NaN();
    for (const auto& run : set.runs)
        for (int t = 0; t < set.steps && t < int(run.entropy.size()); ++t) {
            if (std::isnan(run.entropy[size_t(t)])) continue;
            const double d = run.entropy[size_t(t)] - s.entropyMean[size_t(t)];
            s.entropyStd[size_t(t)] += d * d / entropyCount[size_t(t)];
        }
    for (int t = 0; t < set.steps; ++t)
        s.entropyStd[size_t(t)] = entropyCount[size_t(t)] ? std::sqrt(s.entropyStd[size_t(t)])
                                                          : std::numeric_limits<double>::quiet_NaN();
    for (auto& step : s.visits)
        for (auto& v : step) v /= s.runs;
    s.agreement = double(agree) / s.runs;
    if (judged) s.accuracy = double(right) / s.runs;
    std::stable_sort(s.paths.begin(), s.paths.end(), [](const PathCount& a, const PathCount& b) {
        return a.count != b.count ? a.count > b.count : a.firstRun < b.firstRun;
    });
    // Word hit rates: every scored use in every run, and the deterministic caption's first use.
    std::map<std::string, std::size_t> wordIndex;
    auto entry = [&](const std::string& word) -> WordHitRate& {
        auto [it, inserted] = wordIndex.try_emplace(word, s.wordHits.size());
        if (inserted) s.wordHits.push_back(WordHitRate{word});
        return s.wordHits[it->second];
    };
    for (const auto& run : set.runs) {
        const auto words = splitWords(run.text);
        std::map<std::string, bool> used;
        for (std::size_t w = 0; w < words.size() && w < run.wordHits.size(); ++w) {
            if (run.wordHits[w] < 0) continue;
            auto& e = entry(words[w]);
            ++e.uses;
            e.hits += run.wordHits[w];
            if (!used[words[w]]) ++e.runs, used[words[w]] = true;
        }
    }
    // The deterministic caption's words too, those no run used among them (with no uses).
    const auto detWords = splitWords(set.deterministic.output.text);
    for (std::size_t w = 0; w < detWords.size() && w < set.deterministicWordHits.size(); ++w) {
        if (set.deterministicWordHits[w] < 0) continue;
        if (auto& e = entry(detWords[w]); e.deterministic < 0) e.deterministic = set.deterministicWordHits[w];
    }
    std::stable_sort(s.wordHits.begin(), s.wordHits.end(),
                     [](const WordHitRate& a, const WordHitRate& b) { return a.uses > b.uses; });
    return s;
}

std::string runSetToJson(const RunSet& set, const RunStats& stats, int indent) {
    json runs = json::array();
    for (const auto& r : set.runs) {
        json run = {{"seed", r.seed}, {"label", r.label}, {"confidence", r.confidence},
                    {"entropy", r.entropy}, {"log_prob", r.logProb}};
        if (!r.cells.empty()) run["cells"] = r.cells;
        if (!r.points.empty()) run["points"] = r.points;
        if (!r.text.empty()) run["text"] = r.text;
        if (r.correct >= 0) run["correct"] = r.correct == 1;
        if (!r.wordHits.empty()) run["word_hits"] = r.wordHits;
        runs.push_back(std::move(run));
    }
    json paths = json::array();
    for (const auto& p : stats.paths)
        paths.push_back({{"key", p.key}, {"count", p.count}, {"correct", p.correct}, {"first_run", p.firstRun},
                         {"labels", p.labels}});
    json j = {{"schema", "saccade.runset"},
              {"version", RunSet::kSchemaVersion},
              {"model_id", set.modelId},
              {"image_id", set.imageId},
              {"trained_mode", trainingModeName(set.trainedMode)},
              {"rule", "sample"},
              {"deterministic_rule", set.deterministicRule},
              {"seed", set.seed},
              {"run_seeds", "run i has seed " + std::to_string(set.seed) + " + i"},
              {"image", {{"width", set.imageWidth}, {"height", set.imageHeight}}},
              {"steps", set.steps},
              {"output_kind", outputKindName(set.outputKind)},
              {"class_names", set.classNames},
              {"truth", set.truth ? json(*set.truth) : json(nullptr)},
              {"seconds", set.seconds},
              {"stats",
               {{"runs", stats.runs},
                {"label_counts", stats.labelCounts},
                {"deterministic_label", stats.deterministicLabel},
                {"agreement", stats.agreement},
                {"accuracy", stats.accuracy ? json(*stats.accuracy) : json(nullptr)},
                {"entropy_mean", stats.entropyMean},
                {"entropy_std", stats.entropyStd},
                {"visit_grid", {{"rows", stats.visitRows}, {"cols", stats.visitCols}}},
                {"visits", stats.visits},
                {"distinct_paths", stats.paths.size()},
                {"paths", paths}}},
              {"runs", runs},
              {"deterministic", traceJson(set.deterministic)}};
    if (!set.references.empty()) j["references"] = set.references;
    if (!stats.wordHits.empty()) {
        json words = json::array();
        for (const auto& w : stats.wordHits)
            words.push_back({{"word", w.word}, {"uses", w.uses}, {"hits", w.hits},
                             {"hit_rate", w.uses ? json(w.rate()) : json(nullptr)},
                             {"runs", w.runs},
                             {"deterministic_hit", w.deterministic < 0 ? json(nullptr) : json(w.deterministic == 1)}});
        j["stats"]["word_hits"] = words;
    }
    if (set.gridRows > 0) j["grid"] = {{"rows", set.gridRows}, {"cols", set.gridCols}};
    if (set.soft) j["soft"] = traceJson(*set.soft);
    if (set.ksample) j["ksample"] = traceJson(*set.ksample);
    return j.dump(indent);
}

}  // namespace saccade
