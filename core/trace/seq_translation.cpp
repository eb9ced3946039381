#include "trace/seq_translation.h"

#include <algorithm>

namespace saccade {

bool SeqTranslation::correct() const {
    return hasReference && finished && tokens.size() == reference.target.size() + 1 &&
           std::equal(reference.target.begin(), reference.target.end(), tokens.begin());
}

}  // namespace saccade
