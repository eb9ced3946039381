#include "ui/number_format.h"

#include <QLocale>
#include <algorithm>
#include <cmath>

namespace saccade::ui {

QString formatNumber(double value, int precision) {
    // Print -0 as 0: a sum that cancels exactly should not look negative.
    if (value == 0.0) value = 0.0;
    return QString::number(value, 'g', precision);
}

QString formatEstimate(double mean, double standardError) {
    if (!(standardError > 0) || !std::isfinite(standardError) || !std::isfinite(mean))
        return QStringLiteral("%1 \u00b1 %2").arg(formatNumber(mean), formatNumber(standardError));
    // Decimals that keep two significant digits of the error (none past the units for big errors).
    const int decimals = std::clamp(1 - int(std::floor(std::log10(standardError))), 0, 12);
    if (mean == 0.0) mean = 0.0;
    return QStringLiteral("%1 \u00b1 %2").arg(mean, 0, 'f', decimals).arg(standardError, 0, 'f', decimals);
}

int decimalsShowing(const QVector<double>& values, int significant, int maxDecimals) {
    double smallest = 0;
    for (double v : values)
        if (std::isfinite(v) && v != 0 && (smallest == 0 || std::abs(v) < smallest)) smallest = std::abs(v);
    if (smallest == 0) return 0;
    return std::clamp(significant - 1 - int(std::floor(std::log10(smallest))), 0, maxDecimals);
}

QString formatFixed(double value, int decimals) {
    if (!std::isfinite(value)) return {};
    if (value == 0.0) value = 0.0;
    return QString::number(value, 'f', decimals);
}

QString formatCount(long long count) {
    QLocale locale(QLocale::English);
    return locale.toString(count);
}

QString formatPercent(double fraction, int decimals) {
    return fraction < 0 ? QStringLiteral("–") : QStringLiteral("%1%").arg(100 * fraction, 0, 'f', decimals);
}

}  // namespace saccade::ui
