#pragma once
// What attention costs as inputs grow: every variant of attention_variants.h at each length, on
// the same seeded random queries, keys and values ([batch, heads, n, dim], float32): the forward
// and backward times (medians), the peak memory the attention itself allocates (measured by the
// CPU memory meter; not measured on other devices), the FLOP rate, and the largest error against
// exact attention computed in float64 (tile by tile, so it exists at every length). Lengths whose
// working memory would not fit are refused before anything is allocated, with the figure (the
// figure is set against the host's available memory, also when the device is a GPU). On CUDA every
// timed region ends with a synchronisation.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attention/attention_variants.h"
#include "common/progress.h"
#include "common/result.h"

namespace saccade {

struct LengthBenchOptions {
    std::vector<std::int64_t> lengths{256, 1024, 4096, 16384};
    std::int64_t dim = 64, heads = 4, batch = 1;
    std::vector<AttentionVariant> variants = allAttentionVariants();
    VariantOptions variant;
    int repeats = 3;
    bool backward = true;
    bool errors = true;            ///< measure the error against float64 exact attention
    std::string device = "cpu";
    std::uint64_t seed = 0;        ///< the inputs' seed (performer's features use variant.seed)
    std::int64_t memoryBudget = 0;  ///< bytes one measurement may use; 0: what the machine has available
};

/// One variant at one length; an empty optional is a figure that was not measured.
struct LengthPoint {
    std::int64_t n = 0;
    double forwardMs = 0;                          ///< the median of the timed repeats
    double forwardFastestMs = 0, forwardSlowestMs = 0;  ///< their spread
    std::optional<double> backwardMs;
    std::optional<double> peakMb, backwardPeakMb;  ///< CPU only
    std::optional<double> maxAbsError;             ///< against float64 exact attention
    std::optional<double> maxAbsDiffFull;          ///< against full attention's float32 output (exact variants)
    double gflops = 0;                             ///< forward FLOPs (variantForwardFlops) per second
};

struct LengthBenchResult {
    std::string device;
    int threads = 0;
    double matmulGflops = 0;  ///< the machine's 512^3 float32 product, measured in the same run
    std::map<AttentionVariant, std::vector<LengthPoint>> points;
    /// Least-squares slope of log(forward ms) on log(n) over the lengths >= 1,024 (all lengths
    /// when fewer than two are), per variant; empty with fewer than two lengths.
    std::map<AttentionVariant, std::optional<double>> slopes;
};

/// One line naming the first measurement that would not fit (variant, length, the bytes it needs
/// and the bytes available), or the first option that does not fit a length; empty when all fit.
std::string checkLengthBench(const LengthBenchOptions& options);

/// Runs the benchmark; `progress` sees each measurement done and may cancel (an Error).
Result<LengthBenchResult> benchAttentionLengths(const LengthBenchOptions& options, const Progress& progress = {});

/// The least-squares slope of log(y) on log(x); empty with fewer than two points.
std::optional<double> logLogSlope(const std::vector<double>& x, const std::vector<double>& y);

/// {"device", "threads", "dim", "heads", "batch", "matmul_gflops", "options", "variants": {name:
/// [{"n", "ms", "backward_ms", "peak_mb", "backward_peak_mb", "max_abs_error", "gflops",
/// "flop_fraction"}, ...]}, "slopes": {name: slope}}; figures not measured are null.
std::string lengthBenchToJson(const LengthBenchOptions& options, const LengthBenchResult& result, int indent = 2);

}  // namespace saccade
