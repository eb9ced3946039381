#pragma once
// Alignment error rate (Och and Ney 2003) of attention against a gold alignment with sure and
// possible links: A = the source token each target token points at (the argmax of its attention,
// or the token a hard rule read); AER = 1 - (|A & S| + |A & P|) / (|A| + |S|). Target tokens
// with no gold link (P empty) are left out of A. 0 is perfect; pointing only at possible links
// of ambiguous tokens still scores 0 when they have no sure link. Plain types.

#include <cstdint>
#include <vector>

#include "data/seq_task.h"

namespace saccade {

struct AlignmentErrorCounts {
    std::int64_t pointed = 0, sure = 0, pointedSure = 0, pointedPossible = 0;
    /// Adds one sentence: `pointed[t]` for every target token t of `gold` (extra entries ignored).
    void add(const SeqSample& gold, const std::vector<int>& pointedAt);
    /// 0 when nothing was counted.
    double rate() const;
};

}  // namespace saccade
