#pragma once
// Boundary sweeps: a probe object moved pixel by pixel across the model's cell (patch grid) or
// glimpse size, with the deterministic rule and N seeded stochastic runs at each position. Per
// position: is the output right (each rule), did a chosen cell or the finest glimpse cover the
// object (a hit: see hitOverlap), and how much attention mass fell on it. Also sweeps of the
// object's size and of the clutter around it.

#include <cstdint>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "common/shard.h"
#include "data/probes.h"
#include "models/attention_model.h"

namespace saccade {

/// The side of the model's cell: its attention grid's cell, or its finest glimpse (RAM).
Result<int> modelCellSize(AttentionModel& model);

/// The default probe side: one cell, and at least 20 px for an item (smaller items lose their shape).
int defaultProbeSize(int cell, ProbeObject object);

/// Offsets across two cells on each axis (-cell .. cell - 1 from the anchor line), narrowed so
/// that the object stays on the canvas; uses canvas, cellSize, origins and objectSize.
void setDefaultSweepRanges(ProbeOptions& probe);

/// Sampled runs per sweep position, one default for the CLI's sweep, the report and the GUI's
/// sweep panel (a report and the GUI then agree on the same share of failures).
constexpr int kSweepRuns = 20;

struct SweepOptions {
    ProbeOptions probe;  ///< canvas: the model's input size; offsets relative to the anchor line
    int runs = kSweepRuns;  ///< stochastic runs per position (0: the deterministic rule only)
    std::uint64_t seed = 1;
    Shard shard;         ///< only this slice of the positions (each position's figures are independent)
};

/// The overlap of an object and a chosen region relative to the smaller of the two: 1 when the
/// object lies inside the region or the region inside the object.
double hitOverlap(const Box& object, const Box& region);

/// A step hits the object when hitOverlap with one of its chosen regions reaches this: half of a
/// small object inside the cell or glimpse, or half of the cell on a large object.
constexpr double kHitCoverage = 0.5;

struct SweepPoint {
    int dx = 0, dy = 0;
    int truth = -1;                ///< the object's class; -1 for a blob
    int deterministicLabel = -1;
    bool deterministicHit = false;
    double deterministicCoverage = 0;  ///< the largest hitOverlap of a chosen region
    double mass = 0;               ///< the deterministic run's attention mass on the object, mean over steps
    double sampleAccuracy = -1;    ///< fraction of runs right; -1 without a class or runs
    double hitRate = 0;            ///< fraction of runs with a hit at some step
    int sampleRuns = 0;
};

struct SweepResult {
    ProbeOptions probe;
    int runs = 0;
    std::uint64_t seed = 1;
    std::string modelId, deterministicRule;
    int anchorX = 0, anchorY = 0;  ///< the grid lines the offsets are measured from
    std::vector<SweepPoint> points;  ///< dy-major, as makeProbes orders them
    double seconds = 0;
    /// A sharded sweep: the positions [begin, begin + points) of `total`, and what every shard of
    /// the run must share (set by the caller). The JSON then carries a "shard" object.
    Shard shard;
    std::int64_t begin = 0, total = 0;
    std::string fingerprint;
};

enum class SweepMetric { DeterministicAccuracy, SampleAccuracy, HitRate, DeterministicHit, Mass };
Result<SweepMetric> parseSweepMetric(const std::string& name);
std::string sweepMetricName(SweepMetric metric);
/// The metric at a point in [0, 1]; -1 where it is undefined (accuracy of a blob).
double sweepValue(const SweepPoint& point, SweepMetric metric);

/// Runs the sweep. `source` gives items and clutter (null for clean blobs).
Result<SweepResult> runBoundarySweep(AttentionModel& model, const SweepOptions& options, const ObjectSource* source,
                                     const Progress& progress = {});

/// Positions ordered worst first by `metric` (undefined values last), at most `count`.
std::vector<size_t> worstPoints(const SweepResult& result, SweepMetric metric, size_t count);

/// Mean of `metric` over the points where it is defined (-1 if none).
double meanSweepValue(const SweepResult& result, SweepMetric metric);

/// JSON (schema "saccade.sweep", version 1).
std::string sweepToJson(const SweepResult& result, int indent = 2);
/// The sweep back from its JSON (points, probe, model, rule, runs, seed, timing); for merging shards.
Result<SweepResult> sweepFromJson(const std::string& json);

/// One value of a size or clutter sweep: the position sweep's means at that value.
struct SweepSummary {
    int value = 0;
    int positions = 0;
    /// Means over the positions; -1 where not measured (no truth, no sampled runs), never 0.
    double deterministicAccuracy = -1, sampleAccuracy = -1, hitRate = -1, mass = -1;
};
SweepSummary summariseSweep(int value, const SweepResult& result);

}  // namespace saccade
