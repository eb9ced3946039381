#pragma once
// Sharded evaluations: `--shard i/N` runs the i-th of N contiguous slices of a command's items
// (images, sweep positions), and `saccade-cli merge` combines the shards' JSON into exactly what
// one unsharded run prints. Slices start on multiples of the command's batch, so every batch,
// and with it every per-item figure, is the one the unsharded run computes. Plain types.

#include <cstdint>
#include <string>

#include "common/result.h"

namespace saccade {

struct Shard {
    int index = 0, count = 1;  ///< 0-based: the shards of a run are 0/N .. N-1/N
    bool given = false;        ///< --shard was given (0/1 too: a one-task array still merges)
    bool active() const { return given || count > 1; }
};

/// "i/N" with 0 <= i < N <= 100000, strictly ("1/4x", "4/4" and "-1/4" are errors).
Result<Shard> parseShard(const std::string& text);

/// The items [begin, end) of `shard` among `total`, in blocks of `align` items.
struct ItemRange {
    std::int64_t begin = 0, end = 0;
    std::int64_t size() const { return end - begin; }
};
ItemRange shardRange(const Shard& shard, std::int64_t total, std::int64_t align = 1);

/// A shard of items taken in whole batches of `align`: refused when there are fewer batches than
/// shards (300 items in batches of 250 are 2 batches; 3 shards would be 0, 250 and 50 items), with
/// the largest shard count that works.
Result<ItemRange> batchedShardRange(const Shard& shard, std::int64_t total, std::int64_t align);

/// A sum of doubles that does not depend on the order of its terms: each term is rounded to a
/// multiple of 2^-32 and added as an integer, so the shards' partial sums add up to exactly the
/// unsharded sum. The sum must stay within +-2^31 (masses, distances and correlations in [-1, 1]
/// over up to 2^31 terms do); a non-finite term is not added.
class ExactSum {
public:
    static constexpr double kScale = 4294967296.0;  // 2^32
    void add(double term) {
        if (!(term > -2147483648.0 && term < 2147483648.0)) return;  // NaN, inf or past the range
        m_units += static_cast<std::int64_t>(term * kScale + (term < 0 ? -0.5 : 0.5));
    }
    void add(const ExactSum& other) { m_units += other.m_units; }
    double value() const { return static_cast<double>(m_units) / kScale; }
    std::int64_t units() const { return m_units; }
    static ExactSum fromUnits(std::int64_t units) {
        ExactSum s;
        s.m_units = units;
        return s;
    }

private:
    std::int64_t m_units = 0;
};

}  // namespace saccade
