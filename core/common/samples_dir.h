#pragma once
// Where the bundled samples (models, traces) live at run time.

#include <string>

namespace saccade {

/// The first folder holding models/ among: $SACCADE_SAMPLES_DIR, samples/ beside or above the
/// executable (build trees: ../samples, ../../samples), share/saccade/samples of an install
/// prefix, and the source tree the program was built from. Empty when none exists.
std::string findSamplesDir();

}  // namespace saccade
