#pragma once
// How the GUI prints numbers: short, exact where the value is short (4.8, 32.8, 23.04).

#include <QString>

namespace saccade::ui {

/// Up to `precision` significant digits, no trailing zeros: 23.04, 32.8, 1e-07.
QString formatNumber(double value, int precision = 6);

/// An estimate with its standard error, both to the decimals the error allows (two significant
/// digits of the error): (32.8608, 0.364) -> "32.86 ± 0.36"; a zero or non-finite error prints the
/// mean with formatNumber and the error as given.
QString formatEstimate(double mean, double standardError);

/// A fraction as a percentage with `decimals` decimals: 0.8731 -> "87.31%"; a negative value
/// (no figure) -> "–".
QString formatPercent(double fraction, int decimals);

/// An integer count with thousands separators: 10,000.
QString formatCount(long long count);

}  // namespace saccade::ui
