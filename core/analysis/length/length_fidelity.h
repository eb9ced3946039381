#pragma once
// What the efficient attention variants give up, measured row by row against exact attention on
// the same queries, keys and values: real ones captured from a model's attention layers
// (QkvCapture), or long seeded random sequences. Per variant: the total variation between its
// attention row and the exact one, whether both put their largest weight on the same key (top-1
// agreement), and the output error. The patterned variants are compared at an equal budget of keys
// per query (a fraction of the length), so that none wins by seeing more.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "attention/attention_variants.h"
#include "attention/qkv_capture.h"
#include "common/result.h"

namespace saccade {

/// One layer's attention inputs: q [B, H, N, d], k [B, H, M, d], v [B, H, M, dv] (self-attention:
/// M = N) and keep [B, M] bool (padding), or undefined. Length fidelity reads self-attention only;
/// the atlas also reads a decoder's layers, whose kind says how queries meet keys.
struct FidelitySource {
    std::string name;  ///< as views show it: the file, then the layer ("seq.pt encoder layer 2")
    torch::Tensor q, k, v, keep;
    std::string layer;  ///< the layer as the model names it ("encoder layer 2")
    QkvKind kind = QkvKind::Self;
    torch::Tensor queryKeep;  ///< [B, N] bool: the queries kept; undefined for self-attention (keep)
};

struct FidelityOptions {
    std::vector<AttentionVariant> variants = allAttentionVariants();
    /// Keys per query the patterned variants may see, as a fraction of the length, in (0, 1].
    double budget = 0.125;
    std::int64_t features = 128;  ///< performer's random features
    std::uint64_t seed = 0;       ///< performer's features
};

struct VariantFidelity {
    AttentionVariant variant = AttentionVariant::Full;
    VariantOptions options;        ///< as applied at this source's length
    double keysPerQuery = 0;       ///< mean keys with non-zero weight per row
    std::int64_t rows = 0;         ///< rows compared: batch x heads x queries that are not padding
    double meanTv = 0, maxTv = 0;  ///< total variation 0.5 * sum_j |a_ij - e_ij|, in [0, 1]
    double top1Agreement = 0;      ///< fraction of rows whose largest weight is on exact's largest
    double meanOutputError = 0;    ///< mean over rows of |o_i - e_i| / |e_i| (Euclidean norms)
    double maxAbsOutputError = 0;
    std::vector<double> tvByQuery;  ///< [N] mean total variation per query position (the row map)
    /// top_k only: the fraction of rows where hard attention's choice, one seeded draw from the
    /// exact distribution, lands among the k keys top_k keeps (top_k always uses them; a sample
    /// lands there with the probability mass they hold, and elsewhere otherwise).
    std::optional<double> hardSampleInTopK;
    std::optional<double> topKMass;  ///< top_k only: mean exact probability mass of the kept keys
};

/// The variant options that give each query about `budget` * n keys: a window of budget * n / 2
/// on each side; blocks of budget * n / 2 (at least sqrt(n), the sparsest the pattern gets) with
/// summaries that add about as many again (at least 1, fewer than the block); k = budget * n. `features` and `seed` go to the performer.
VariantOptions budgetOptions(std::int64_t n, double budget, std::int64_t features, std::uint64_t seed);

/// Measures `variants` on `source` under the given options (checked against its length).
Result<std::vector<VariantFidelity>> measureFidelityWith(const FidelitySource& source,
                                                         const std::vector<AttentionVariant>& variants,
                                                         const VariantOptions& options);

/// Measures every variant of `options` on `source` at budgetOptions(). An Error for an empty source, shapes that
/// are not self-attention, a budget outside (0, 1] or lengths whose N x N matrices would not fit.
Result<std::vector<VariantFidelity>> measureFidelity(const FidelitySource& source, const FidelityOptions& options);

/// Seeded standard-normal queries, keys and values: [1, heads, n, dim], float32, CPU.
FidelitySource randomFidelitySource(std::int64_t n, std::int64_t dim, std::int64_t heads, std::uint64_t seed);

/// Queries and keys that share a sinusoidal position code (frequencies 1 down to 1/10,000, as a
/// Transformer's), scaled by 2, plus standard-normal noise; values standard normal. Attention over
/// them peaks near the diagonal and fades with distance, as over real sequences (at width 64 about
/// 92% of each row's mass lies within 64 positions), so what a pattern cuts off shows row by row. [1, heads, n, dim] (dim even), float32, CPU.
FidelitySource positionalFidelitySource(std::int64_t n, std::int64_t dim, std::int64_t heads, std::uint64_t seed);

/// {"sources": [{"name", "n", "rows", "variants": {name: {"options", "keys_per_query", "mean_tv",
/// "max_tv", "top1_agreement", "mean_output_error", "max_abs_output_error"}}}]}.
std::string fidelityToJson(const std::vector<std::pair<FidelitySource, std::vector<VariantFidelity>>>& results,
                           const FidelityOptions& options, int indent = 2);

}  // namespace saccade
