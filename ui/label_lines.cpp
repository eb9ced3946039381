#include "label_lines.h"

#include <QFontMetrics>
#include <QLabel>

namespace saccade::ui {

void reserveLines(QLabel* label, int lines, bool exactly) {
    const QMargins m = label->contentsMargins();
    const int height = lines * QFontMetrics(label->font()).lineSpacing() + m.top() + m.bottom() + 2 * label->margin() + 2;
    if (exactly)
        label->setFixedHeight(height);
    else
        label->setMinimumHeight(height);
}

void capLines(QLabel* label, int lines, const QFont* font) {
    const QMargins m = label->contentsMargins();
    label->setMaximumHeight(lines * QFontMetrics(font ? *font : label->font()).lineSpacing() + m.top() + m.bottom() +
                            2 * label->margin() + 2);
}

}  // namespace saccade::ui
