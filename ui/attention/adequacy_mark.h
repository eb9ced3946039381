#pragma once
// AdequacyMark: the "inadequate observation" mark over the top of the canvas. Shown when the
// image's value of the chosen adequacy signal lies on the inadequate side of the threshold chosen
// on the Adequacy tab, with the value, the threshold and where the value comes from; hidden
// otherwise. It floats over its parent (the canvas), so showing it moves nothing.

#include <QLabel>
#include <optional>

#include "analysis/runs/adequacy.h"

namespace saccade::ui {

class AdequacyMark : public QLabel {
    Q_OBJECT

public:
    /// Floats over the top edge of `parent`, following its size.
    explicit AdequacyMark(QWidget* parent);

    /// `source` says where the value was measured (e.g. "50 runs, seeds 1..50"). Without a
    /// threshold the mark shows only when `unreachable` (no threshold reaches the target: every
    /// image is flagged).
    void showFor(AdequacySignal signal, std::optional<double> value, std::optional<double> threshold,
                 bool unreachable, double targetAccuracy, const QString& source);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();
};

}  // namespace saccade::ui
