#pragma once
// Parsing of user-typed numbers, shared by the CLI and the GUI forms.

#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

/// Parses "2, 6,10" into {2, 6, 10}. `what` names the list in the error ("values").
/// Empty lists, empty items, non-numbers and non-finite numbers are errors.
Result<std::vector<double>> parseNumberList(const std::string& text, const std::string& what);

}  // namespace saccade
