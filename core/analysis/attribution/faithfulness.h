#pragma once
// Is attention faithful? On a model and a test split, under its deterministic rule:
// - attention mass inside the ground-truth box per step, and the pointing game (the most
//   attended cell, or the Gaussian's mean, falls on the object), against what uniform attention
//   would give;
// - deletion curves: remove (fill with the background, 0) the most attended cells versus random
//   cells of the same area, and report the accuracy and the total variation distance between
//   the class distributions before and after, per fraction removed;
// - rank agreement (Spearman) between the attention map and an occlusion saliency map (each
//   cell of the model's grid occluded alone, the change in the output's probability; the copies
//   go to the model in batches), after Jain and Wallace 2019;
// - calibration of a cell's attention as the probability that the cell lies on the object
//   (at least half inside the box): a reliability diagram and its expected calibration error.
// Attention is a record of where the model looked, not an explanation of its answer: these
// figures say how far the two coincide.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "common/shard.h"
#include "data/dataset.h"
#include "data/image.h"
#include "models/attention_model.h"

namespace saccade {

/// Says what attention maps are, in one sentence, wherever faithfulness figures are shown.
inline constexpr const char* kAttentionCaveat =
    "Attention is a record of access (where the model looked), not an explanation of its answer.";

/// What the figures are made of: counts and order-independent sums over the images, so that the
/// shards of a measurement add up to exactly the unsharded figures.
struct FaithfulnessSums {
    std::int64_t images = 0, boxed = 0, correlationImages = 0;
    int rows = 0, cols = 0;
    std::vector<ExactSum> mass;             ///< per step, over boxed images
    std::vector<std::int64_t> pointing;     ///< per step
    ExactSum area, rho;
    std::vector<std::int64_t> rightAttention, rightRandom;  ///< per fraction
    std::vector<ExactSum> tvAttention, tvRandom;            ///< per fraction
    std::vector<std::int64_t> binCount, binOnObject;        ///< per reliability bin
    std::vector<ExactSum> binAttention;
    /// Adds another slice's sums (same steps, fractions and bins).
    void add(const FaithfulnessSums& other);
};

struct FaithfulnessOptions {
    std::int64_t limit = 200;          ///< test images (mass, pointing, deletion, calibration)
    std::int64_t saliencyImages = 30;  ///< images for the occlusion saliency correlation (L traces each)
    std::vector<double> fractions{0.0, 0.05, 0.1, 0.2, 0.3, 0.5};  ///< of the cells removed
    int gridForGlimpses = 10;          ///< cells per side of the map of a RAM's Gaussians
    int bins = 10;                     ///< reliability bins over [0, 1]
    std::uint64_t seed = 1;            ///< the random deletion order (image i's from the seed and i)
    Shard shard;                       ///< only this slice of the `limit` images
    /// The rule whose maps are measured; empty: the model's deterministic rule. A transformer's
    /// attention against its rollout (steps are then layers) is the comparison this is for.
    std::string rule;
};

struct DeletionPoint {
    double fraction = 0;
    double accuracyAttention = 0, accuracyRandom = 0;  ///< after removing the most attended / random cells
    double tvAttention = 0, tvRandom = 0;              ///< mean total variation from the intact output
};

struct ReliabilityBin {
    double low = 0, high = 0;
    std::int64_t count = 0;
    double meanAttention = 0, onObject = 0;  ///< mean attention, and the fraction of cells on the object
};

struct FaithfulnessReport {
    std::string dataset, rule;
    std::int64_t images = 0;
    int rows = 0, cols = 0;                 ///< the attention map's grid
    /// Images with a ground-truth box. Without any (an image folder), the box figures below are
    /// not measured: the per-step vectors are empty and the optionals unset (null in JSON).
    std::int64_t boxed = 0;
    std::vector<double> massPerStep;        ///< mean attention mass in the box, per step
    std::vector<double> pointingPerStep;    ///< pointing-game hit rate, per step
    std::optional<double> uniformMass;      ///< mean box area / image area: uniform attention's mass
    std::vector<DeletionPoint> deletion;
    /// Mean Spearman rho, attention vs occlusion saliency, over the images where both maps have
    /// ranks (neither is flat); unset when no image had.
    std::optional<double> rankCorrelation;
    std::int64_t correlationImages = 0;
    std::vector<ReliabilityBin> reliability;  ///< over boxed images' cells
    std::optional<double> expectedCalibrationError;
    double seconds = 0;
    FaithfulnessSums sums;  ///< what the figures above are made of
    /// A sharded measurement: its slice, the images [begin, begin + images) of `total`, and what
    /// every shard of the run must share (set by the caller); the JSON then carries the sums.
    Shard shard;
    std::int64_t begin = 0, total = 0;
    std::string fingerprint;
};

/// The figures from their sums: means per step, deletion, correlation, reliability and ECE.
FaithfulnessReport faithfulnessFromSums(const FaithfulnessSums& sums, const std::vector<double>& fractions,
                                        const std::string& dataset, const std::string& rule);

/// Fills the cells (row-major indices of a rows x cols grid) of a copy of `image` with `fill`.
Image occludeCells(const Image& image, int rows, int cols, const std::vector<int>& cells, std::uint8_t fill = 0);

/// Total variation distance between two distributions: half the L1 distance.
double totalVariation(const std::vector<float>& p, const std::vector<float>& q);

/// Spearman's rank correlation (average ranks for ties); 0 when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

/// The mean of per-step maps of `cells` cells each: a trace's one map.
std::vector<double> meanStepMap(const std::vector<std::vector<double>>& steps, int cells);

/// The grid maps are measured on (rows, cols): the model's cells where it declares them, else the
/// trace's own grid (a transformer's patches), else `fallback` cells a side (a RAM's Gaussians).
std::pair<int, int> measuredGrid(const AttentionModel& model, const Trace& trace, int fallback);

Result<FaithfulnessReport> measureFaithfulness(AttentionModel& model, const Dataset& dataset, Split split,
                                               const FaithfulnessOptions& options, const Progress& progress = {});

/// JSON (schema "saccade.faithfulness", version 1), with the caveat.
std::string faithfulnessToJson(const FaithfulnessReport& report, int indent = 2);
/// The sums of a sharded measurement's JSON ("sums"), for merging.
Result<FaithfulnessSums> faithfulnessSumsFromJson(const std::string& json);

}  // namespace saccade
