#include "ui/attention/adequacy_mark.h"

#include <QEvent>
#include <algorithm>
#include <cmath>

namespace saccade::ui {

AdequacyMark::AdequacyMark(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("inadequateMark"));
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setStyleSheet(QStringLiteral("QLabel { background: #fff0d6; color: #7a4300; border: 2px solid #e08a00; "
                                 "padding: 5px; }"));
    setToolTip(tr("Set the signal and the target accuracy on the Adequacy tab"));
    parent->installEventFilter(this);
    hide();
}

bool AdequacyMark::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) place();
    return QLabel::eventFilter(watched, event);
}

void AdequacyMark::place() {
    constexpr int kMargin = 6;
    const int width = std::max(100, parentWidget()->width() - 2 * kMargin);
    setGeometry(kMargin, kMargin, width, heightForWidth(width));
    raise();
}

void AdequacyMark::showFor(AdequacySignal signal, std::optional<double> value, std::optional<double> threshold,
                           bool unreachable, double targetAccuracy, const QString& source) {
    if (!value) return hide();
    const auto& info = signalInfo(signal);
    const int decimals = info.unit == std::string("pixels") ? 1 : 3;
    const QString measured = QStringLiteral("%1 %2").arg(QString::fromLatin1(info.key)).arg(*value, 0, 'f', decimals);
    if (threshold && isInadequate(signal, *value, *threshold)) {
        setText(tr("<b>⚠ Inadequate observation</b>: %1 is %2 the threshold %3 chosen for %4% accuracy (%5).")
                    .arg(measured, info.higherIsAdequate ? tr("below") : tr("above"))
                    .arg(*threshold, 0, 'f', decimals)
                    .arg(100 * targetAccuracy, 0, 'f', 1)
                    .arg(source.toHtmlEscaped()));
        place();
        return show();
    }
    if (!threshold && unreachable) {
        setText(tr("<b>⚠ Inadequate observation</b>: %1, and no threshold on it reaches %2% accuracy, so every "
                   "image is flagged (%3).")
                    .arg(measured)
                    .arg(100 * targetAccuracy, 0, 'f', 1)
                    .arg(source.toHtmlEscaped()));
        place();
        return show();
    }
    hide();
}

}  // namespace saccade::ui
