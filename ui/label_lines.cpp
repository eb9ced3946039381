#include "ui/label_lines.h"

#include <QFontMetrics>
#include <QLabel>

namespace saccade::ui {

namespace {

int linesHeight(const QLabel* label, int lines, const QFont* font) {
    const QMargins m = label->contentsMargins();
    return lines * QFontMetrics(font ? *font : label->font()).lineSpacing() + m.top() + m.bottom() + 2 * label->margin() + 2;
}

}  // namespace

void holdLines(QLabel* label, int lines, const QFont* font) { label->setFixedHeight(linesHeight(label, lines, font)); }

void capLines(QLabel* label, int lines, const QFont* font) { label->setMaximumHeight(linesHeight(label, lines, font)); }

}  // namespace saccade::ui
