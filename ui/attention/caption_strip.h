#pragma once
// CaptionStrip: a captioner's caption word by word under the canvas. Each word is a button;
// the current step's word is highlighted, and clicking a word asks for its step (the canvas then
// shows that word's attention map and the box of the object it names). A second line says whether
// the caption is one of the image's valid captions, and a third gives the companion caption (beam
// beside greedy, greedy beside beam) with its own verdict and a link that shows it. Hidden for
// models whose steps emit no word.

#include <QWidget>
#include <optional>
#include <string>
#include <vector>

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
    /// The other decoding's caption of the same image, or none (the line hides).
    void setCompanion(const std::optional<saccade::Trace>& companion);
    QString companionText() const;
    /// The companion line belongs to the previous trace: greyed until setCompanion.
    void markCompanionStale();

Q_SIGNALS:
    void stepRequested(int step);
    /// The companion line's "show it": switch to that rule.
    void ruleRequested(const QString& rule);

protected:
    /// The words follow the strip's type (presentation mode enlarges it and gives it back).
    void changeEvent(QEvent* event) override;

private:
    /// The words' type: the strip's, a little larger; bold for the current step.
    QFont wordFont(bool current) const;
    void fitScrollHeight();
    QScrollArea* m_scroll = nullptr;
    QHBoxLayout* m_words = nullptr;
    QLabel* m_verdict = nullptr;
    QLabel* m_companion = nullptr;
    std::vector<std::string> m_references;  ///< of the shown trace's image
    std::string m_caption;                  ///< the shown trace's caption
    QList<QToolButton*> m_buttons;
    int m_step = -1;
};

}  // namespace saccade::ui
