#pragma once
// CaptionStrip: a captioner's caption word by word under the canvas. Each word is a button;
// the current step's word is highlighted, and clicking a word asks for its step (the canvas then
// shows that word's attention map and the box of the object it names). A second line says whether
// the caption is one of the image's valid captions. Hidden for models whose steps emit no word.

#include <QWidget>

#include "trace/trace.h"

class QHBoxLayout;
class QLabel;
class QScrollArea;
class QToolButton;

namespace saccade::ui {

class CaptionStrip : public QWidget {
    Q_OBJECT
public:
    explicit CaptionStrip(QWidget* parent = nullptr);
    /// Shows the trace's words (hides itself when no step has a token).
    void setTrace(const Trace& trace);
    void setStep(int step);
    /// The words shown, in order (for tests).
    QStringList words() const;
    QString verdict() const;

Q_SIGNALS:
    void stepRequested(int step);

private:
    QScrollArea* m_scroll = nullptr;
    QHBoxLayout* m_words = nullptr;
    QLabel* m_verdict = nullptr;
    QList<QToolButton*> m_buttons;
    int m_step = -1;
};

}  // namespace saccade::ui
