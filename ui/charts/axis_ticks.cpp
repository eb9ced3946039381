#include "ui/charts/axis_ticks.h"

#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace saccade::ui {

void setRoundTicks(QValueAxis* axis, double low, double high, int ticks, bool integers) {
    if (!(high > low)) high = low + 1;
    const double raw = (high - low) / std::max(1, ticks - 1);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    const double r = raw / power;
    double step = (r < 1.5 ? 1 : r < 2.25 ? 2 : r < 3.5 ? 2.5 : r < 7.5 ? 5 : 10) * power;
    if (integers) step = std::max(1.0, step == 2.5 ? 2.0 : std::round(step));
    // Qt lays the ticks out on every change: never let an old small step meet a new wide range
    // (0..1e6 in steps of 2.5 is 400,000 labels), so a wider step goes in before the range, a
    // narrower one after.
    if (step >= axis->tickInterval()) {
        axis->setTickInterval(step);
        axis->setRange(low, high);
    } else {
        axis->setRange(low, high);
        axis->setTickInterval(step);
    }
    axis->setTickAnchor(0);
    axis->setTickType(QValueAxis::TicksDynamic);
    // Enough decimals for the step (2.5 needs one more than its power of ten).
    const int decimals = std::max(0, int(-std::floor(std::log10(step) + 1e-9)) + (std::fmod(step / power, 1.0) > 1e-9 ? 1 : 0));
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

}  // namespace saccade::ui
