#pragma once
// The labels every lab page opens with: its one-sentence lesson in italics, and the red line that
// names what is wrong with the form's input (hidden until there is something to say).

#include <QString>

class QLabel;
class QWidget;

namespace saccade::ui {

QLabel* makeLabExplanation(QWidget* parent, const QString& text);
QLabel* makeLabErrorLabel(QWidget* parent);

}  // namespace saccade::ui
