#include "metrics/alignment_error.h"

#include <algorithm>

namespace saccade {

void AlignmentErrorCounts::add(const SeqSample& gold, const std::vector<int>& at) {
    for (std::size_t t = 0; t < gold.target.size() && t < at.size(); ++t) {
        const auto& p = gold.possible[t];
        const auto& s = gold.sure[t];
        if (p.empty()) continue;
        ++pointed;
        sure += std::int64_t(s.size());
        pointedSure += std::find(s.begin(), s.end(), at[t]) != s.end();
        pointedPossible += std::find(p.begin(), p.end(), at[t]) != p.end();
    }
}

double AlignmentErrorCounts::rate() const {
    return pointed + sure ? 1.0 - double(pointedSure + pointedPossible) / double(pointed + sure) : 0;
}

}  // namespace saccade
