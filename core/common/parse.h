#pragma once
// Strict parsing of user-typed numbers, shared by the CLI, the GUI forms and the file readers:
// "12abc", "1e3", "0x10" and "5.9" are not whole numbers, and nothing wraps or saturates.

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

/// A whole number in [lo, hi]: an optional '-' and decimal digits, nothing else. `what` names
/// the value in the error ("--limit").
Result<std::int64_t> parseInteger(const std::string& text, const std::string& what,
                                  std::int64_t lo = INT64_MIN, std::int64_t hi = INT64_MAX);

/// A finite decimal number ("0.5", "-3", "1e-3"); hex, "inf", "nan" and trailing text are errors.
Result<double> parseNumber(const std::string& text, const std::string& what);

/// Parses "2, 6,10" into {2, 6, 10}. `what` names the list in the error ("values").
/// Empty lists, empty items, non-numbers and non-finite numbers are errors.
Result<std::vector<double>> parseNumberList(const std::string& text, const std::string& what);

/// Parses "256, 1024" into whole numbers, each in [lo, hi]; `what` names the list in the error.
Result<std::vector<std::int64_t>> parseIntegerList(const std::string& text, const std::string& what, std::int64_t lo,
                                                   std::int64_t hi);

struct IntRange {
    int lo = 0;
    int hi = 0;
};
/// "N" or "LO:HI" with LO <= HI, each a whole number in [-1e6, 1e6].
Result<IntRange> parseIntRange(const std::string& text, const std::string& what);

/// "DATASET:INDEX" (INDEX a whole number >= 0), as --sample takes it.
struct SampleRef {
    std::string dataset;
    std::int64_t index = 0;
};
Result<SampleRef> parseSampleRef(const std::string& text);

}  // namespace saccade
