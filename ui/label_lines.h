#pragma once
// Labels that hold still: a label whose text changes (a rule's description, a verdict that
// sometimes wraps) reserves a number of text lines, so the widgets below it do not move when the
// text grows or shrinks by a line. The reservation follows the label's font (presentation mode).

class QFont;
class QLabel;

namespace saccade::ui {

/// Reserves `lines` lines of the label's font: at least that tall (`exactly`: that tall, longer
/// text is cut and shown whole in the tooltip the caller sets). Call again after a font change.
void reserveLines(QLabel* label, int lines, bool exactly = false);
/// At most `lines` lines of `font` (the label's when null): a long text is cut, not let grow the
/// window past the screen.
void capLines(QLabel* label, int lines, const QFont* font = nullptr);

}  // namespace saccade::ui
