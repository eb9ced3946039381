#pragma once
// Labels that hold still: a label whose text changes (a verdict that sometimes wraps) keeps a fixed
// number of text lines, and a label of free text (session notes) has at most a few, so the widgets
// around it do not move and the window does not outgrow the screen. Call again after a font change
// (presentation mode), with the new font when the label does not have it yet.

class QFont;
class QLabel;

namespace saccade::ui {

/// Exactly `lines` lines of `font` (the label's when null) tall; a longer text is cut (the caller
/// puts it whole in the tooltip).
void holdLines(QLabel* label, int lines, const QFont* font = nullptr);
/// At most `lines` lines of `font` (the label's when null) tall.
void capLines(QLabel* label, int lines, const QFont* font = nullptr);

}  // namespace saccade::ui
