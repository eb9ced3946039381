// The model families this build ships, in the order the Training page lists those it trains. A family is one
// folder, core/models/<name>/, and one line here; its <name>_family.cpp defines the function. They
// are declared here, not included, so that the models base includes no family (scripts/check-floors.sh).
#include "models/model_family.h"

namespace saccade {

ModelFamily patchFamily();
ModelFamily ramFamily();
ModelFamily captionFamily();
ModelFamily seqFamily();
ModelFamily vitFamily();
ModelFamily scriptFamily();

std::vector<ModelFamily> builtinFamilies() {
    return {patchFamily(), ramFamily(), captionFamily(), seqFamily(), vitFamily(), scriptFamily()};
}

}  // namespace saccade
