#pragma once
// A run set: N seeded stochastic runs of one model on one image, next to its deterministic run,
// and the statistics the comparison panel and `saccade-cli compare` show: the output histogram,
// agreement with the deterministic output, per-step entropy over runs, where the runs looked at
// each step (visit density), and the distinct glimpse paths with their counts and accuracy.
// Plain types; no LibTorch.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "trace/trace.h"
#include "trace/output_kind.h"

namespace saccade {

/// Run i of a set with seed s is the sample-rule trace with seed s + i: trace(image, "sample",
/// runSeed(s, i)) repeats it exactly.
inline std::uint64_t runSeed(std::uint64_t seed, std::size_t run) { return seed + run; }

/// The seeds of `count` consecutive runs starting at `first`.
inline std::vector<std::uint64_t> runSeeds(std::uint64_t first, int count) {
    std::vector<std::uint64_t> seeds(count > 0 ? std::size_t(count) : 0);
    for (std::size_t i = 0; i < seeds.size(); ++i) seeds[i] = runSeed(first, i);
    return seeds;
}

struct RunRecord {
    std::uint64_t seed = 0;
    int label = -1;          ///< the run's output class
    float confidence = 0;    ///< its probability
    std::vector<float> probs;  ///< classifiers: its output distribution (not in the JSON)
    std::vector<int> cells;  ///< per step, the chosen cell (grid models); empty otherwise
    std::vector<std::array<float, 2>> points;  ///< per step, the glimpse centre in pixels (RAM)
    std::vector<float> entropy;  ///< per step, of the distribution the run drew from (nats)
    double logProb = 0;          ///< of all its choices
    std::string text;            ///< captioners: the run's caption (its label indexes the set's captions)
    int correct = -1;            ///< 1 right, 0 wrong, -1 judged by label == truth (classifiers)
    /// Captioners on a scene with known objects: per word of `text`, whether its chosen cell hit
    /// the object the word names (a relation word: either object it relates): 1 hit, 0 miss, -1
    /// not scored. Empty otherwise.
    std::vector<int> wordHits;
};

struct RunSet {
    static constexpr int kSchemaVersion = 1;
    std::string modelId, imageId;
    TrainingMode trainedMode = TrainingMode::Soft;
    std::string deterministicRule;  ///< argmax or mean
    /// Class: labels index classNames. Caption: labels index the distinct captions, which
    /// classNames then lists: the deterministic caption first, then in order of first run.
    OutputKind outputKind = OutputKind::Class;
    std::vector<std::string> references;  ///< captioners: the image's valid captions
    std::uint64_t seed = 1;
    int imageWidth = 0, imageHeight = 0, steps = 0;
    int gridRows = 0, gridCols = 0;  ///< the attention grid; 0 for continuous locations
    std::vector<std::string> classNames;
    std::optional<int> truth;
    std::vector<RunRecord> runs;
    Trace deterministic;        ///< the deterministic rule's run
    std::optional<Trace> soft;  ///< soft attention, where the model has it
    std::optional<Trace> ksample;  ///< ksample:K summary of K runs (K = kSampleK)
    /// Captioners: the deterministic caption's word hits (as RunRecord::wordHits; its argmax cell
    /// where it chose none).
    std::vector<int> deterministicWordHits;
    int kSampleK = 0;
    double seconds = 0;  ///< to compute the runs
};

/// How often the runs' attention hit the object a word names, for one word (captioners).
struct WordHitRate {
    std::string word;
    int uses = 0;   ///< scored uses over all runs (a word used twice in a caption counts twice; 0: only
                    ///< the deterministic caption used it)
    int hits = 0;
    int runs = 0;   ///< runs whose caption used the word at least once (scored)
    int deterministic = -1;  ///< the deterministic caption's first scored use: 1 hit, 0 miss, -1 none
    double rate() const { return uses ? double(hits) / uses : 0; }
};

/// One distinct path: the cells (grid) or location bins (RAM) of every step.
struct PathCount {
    std::vector<int> key;
    int count = 0;
    int correct = 0;       ///< runs on this path that output the true class (0 without a truth)
    int firstRun = -1;     ///< the first run that took it (click to load)
    std::vector<int> labels;  ///< output histogram of the runs on this path
};

struct RunStats {
    int runs = 0;
    std::vector<int> labelCounts;  ///< per class
    int deterministicLabel = -1;
    double agreement = 0;          ///< fraction of runs with the deterministic output
    std::optional<double> accuracy;  ///< fraction right, when the truth is known
    std::vector<double> entropyMean, entropyStd;  ///< per step, over runs (NaN: no policy at that step)
    /// Per step, the fraction of runs that looked in each visit cell: the attention grid, or a
    /// visitCols x visitRows binning of the image for continuous locations.
    std::vector<std::vector<double>> visits;
    int visitRows = 0, visitCols = 0;
    std::vector<PathCount> paths;  ///< most common first, ties by first run
    /// Captioners with known objects: per scored word of the runs and of the deterministic caption,
    /// most used first (ties by first use).
    std::vector<WordHitRate> wordHits;
};

/// Statistics of a set; continuous locations are binned into `bins` x `bins` cells.
RunStats computeRunStats(const RunSet& set, int bins = 6);

/// JSON (schema "saccade.runset", version 1): the set's header, every run, the statistics, and
/// the deterministic, soft and ksample traces.
std::string runSetToJson(const RunSet& set, const RunStats& stats, int indent = 2);

}  // namespace saccade
