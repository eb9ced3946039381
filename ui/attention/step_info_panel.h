#pragma once
// StepInfoPanel: what the current trace step says: class probabilities (bar chart), entropy,
// log-probability of the choice, the chosen cells, and the rule, seed and device that made it.

#include <QWidget>

#include "trace/trace.h"

class QGroupBox;
class QLabel;

namespace saccade::ui {

class ClassProbChart;

class StepInfoPanel : public QWidget {
    Q_OBJECT

public:
    explicit StepInfoPanel(QWidget* parent = nullptr);

    void setTrace(const Trace& trace, double computeMs);
    void setStep(int step);
    void clear(const QString& message = {});

    ClassProbChart* chart() const { return m_chart; }
    /// The text of the run and step summaries (for tests).
    QString runText() const;
    QString stepText() const;
    QString outputText() const;

protected:
    /// The reserved lines follow the type (presentation mode).
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QString runTextFor(const Trace& t, const QString& rule, const QString& meaning, double ms, quint64 seed) const;
    void reserveRunHeight();
    QLabel* m_runProbe = nullptr;  ///< hidden: measures the longest run text at the label's width
    void refresh();
    void setCellStepText(const TraceStep& step, bool kSample);
    void updateOutput(const Trace& trace, const TraceStep& step);

    QLabel* m_run = nullptr;
    QLabel* m_step = nullptr;
    QLabel* m_output = nullptr;
    ClassProbChart* m_chart = nullptr;
    std::optional<Trace> m_trace;
    double m_computeMs = 0;
    int m_stepIndex = 0;
    QGroupBox* m_stepBox = nullptr;
    QGroupBox* m_outBox = nullptr;
};

}  // namespace saccade::ui
