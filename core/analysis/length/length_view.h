#pragma once
// The length view's figure data: one attention variant at one length n, on seeded queries, keys
// and values (positional or random; one batch of `heads` heads of width `dim`):
//   pattern  which keys each query attends to, as the density of attended (query, key) pairs in
//            a grid of at most 128 x 128 cells (sampled query rows for n above 128; top_k's
//            pattern is the data's own)
//   row map  the total variation between every query's attention row and the exact one (computed
//            a block of rows at a time, never the N x N matrix), the top-1 agreement, and the mean
//            relative output error |o_i - e_i| / |e_i|
//   curves   forward time and peak memory against length for the variant and for full
//            attention, measured live (full only where it fits in memory), with log-log slopes
// Plain types out; computing it takes LibTorch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attention/attention_variants.h"
#include "common/progress.h"
#include "common/result.h"

namespace saccade {

struct LengthViewOptions {
    AttentionVariant variant = AttentionVariant::Local;
    std::int64_t n = 4096;
    VariantOptions options;
    std::int64_t dim = 64, heads = 1;
    std::uint64_t seed = 0;
    /// The inputs of the pattern and row map: positional (attention peaks near the diagonal, as
    /// over real sequences; positionalFidelitySource) or random (independent normal: flat attention).
    bool positional = true;
    /// Lengths of the cost curves; empty: powers of two from 256 (or n) up to n.
    std::vector<std::int64_t> curveLengths;
    int repeats = 5;
};

struct LengthCurvePoint {
    std::int64_t n = 0;
    double ms = 0;                       ///< the median of the repeats
    double fastestMs = 0, slowestMs = 0;  ///< their spread
    std::optional<double> peakMb;        ///< CPU only
};

/// The log-log slope of a cost curve where it means something: fitted over the lengths from
/// 1,024 (all lengths when fewer than 3 reach it) once 3 lengths are measured and each of their
/// timings is steady (slowest within 1.5x the fastest); else none, and `why` says which.
std::optional<double> curveSlope(const std::vector<LengthCurvePoint>& curve, std::string* why = nullptr);

struct LengthView {
    LengthViewOptions request;
    int patternRows = 0, patternCols = 0;
    std::vector<double> pattern;        ///< [patternRows * patternCols] density in [0, 1], row-major
    std::vector<std::int64_t> patternQueries;  ///< the query position of each pattern row
    double keysPerQuery = 0;            ///< mean attended keys per query (over the sampled rows)
    std::vector<double> rowTv;          ///< [n] total variation from exact attention per query (mean over heads)
    double meanTv = 0, maxTv = 0;
    double top1Agreement = 0;           ///< rows whose largest weight is on exact attention's largest key
    double meanOutputError = 0;         ///< mean over rows of |o_i - e_i| / |e_i|
    std::vector<LengthCurvePoint> curve, fullCurve;
    std::optional<double> slope, fullSlope;  ///< curveSlope of each curve
    std::string slopeNote, fullSlopeNote;   ///< why a slope is not given
    double matmulGflops = 0;
    std::string device = "cpu";
};

/// One line on what does not fit (options for the length, a length outside 16..65,536); empty when fine.
std::string checkLengthView(const LengthViewOptions& options);

/// Computes the view; `progress` sees the curves' measurements and may cancel (an Error).
Result<LengthView> computeLengthView(const LengthViewOptions& options, const Progress& progress = {});

/// {"schema": "saccade.length-view", "variant", "n", "options", "pattern": {"rows", "cols",
/// "queries", "density"}, "keys_per_query", "row_tv", "mean_tv", "max_tv", "top1_agreement",
/// "mean_output_error", "curves": {variant: [{"n", "ms", "peak_mb"}], "full": [...]},
/// "slopes": {...}}; figures not measured are null.
std::string lengthViewToJson(const LengthView& view, int indent = 2);
/// The cost curves, one table: "variant,n,median_ms,fastest_ms,slowest_ms,repeats,peak_mb".
std::string lengthViewToCsv(const LengthView& view);
/// The error per query, one table: "query,total_variation".
std::string lengthRowsToCsv(const LengthView& view);

}  // namespace saccade
