#include "number_format.h"

#include <QLocale>

namespace saccade::ui {

QString formatNumber(double value, int precision) {
    // Print -0 as 0: a sum that cancels exactly should not look negative.
    if (value == 0.0) value = 0.0;
    return QString::number(value, 'g', precision);
}

QString formatCount(long long count) {
    QLocale locale(QLocale::English);
    return locale.toString(count);
}

QString formatPercent(double fraction, int decimals) {
    return fraction < 0 ? QStringLiteral("–") : QStringLiteral("%1%").arg(100 * fraction, 0, 'f', decimals);
}

}  // namespace saccade::ui
