#pragma once
// Value axes on round ticks: 1, 2 or 5 times a power of ten, anchored at 0, over the exact range,
// labelled with as many decimals as the step needs (0, 5, 10, 15, 20; 0, 0.25, ..., 1).

class QValueAxis;

namespace saccade::ui {

/// Sets `axis` to [low, high] (high > low) with about `ticks` round ticks and matching labels.
/// `integers`: a count axis (iterations, steps), whose ticks and labels are whole numbers.
void setRoundTicks(QValueAxis* axis, double low, double high, int ticks = 5, bool integers = false);

}  // namespace saccade::ui
