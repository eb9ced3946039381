#pragma once
// How the GUI prints numbers: short, exact where the value is short (4.8, 32.8, 23.04).

#include <QString>
#include <QVector>

namespace saccade::ui {

/// Up to `precision` significant digits, no trailing zeros: 23.04, 32.8, 1e-07.
QString formatNumber(double value, int precision = 6);

/// An estimate with its standard error, both to the decimals the error allows (two significant
/// digits of the error): (32.8608, 0.364) -> "32.86 ± 0.36"; a zero or non-finite error prints the
/// mean with formatNumber and the error as given.
QString formatEstimate(double mean, double standardError);

/// The decimals that show the smallest non-zero finite |value| with `significant` significant
/// digits (0.009733, 2 -> 4), clamped to [0, maxDecimals]; 0 when there is none. One count for a
/// whole column keeps its decimals uniform.
int decimalsShowing(const QVector<double>& values, int significant, int maxDecimals = 6);

/// `value` with exactly `decimals` decimals; empty for NaN or infinity (no figure).
QString formatFixed(double value, int decimals);

/// A fraction as a percentage with `decimals` decimals: 0.8731 -> "87.31%"; a negative value
/// (no figure) -> "–".
QString formatPercent(double fraction, int decimals);

/// An integer count with thousands separators: 10,000.
QString formatCount(long long count);

}  // namespace saccade::ui
