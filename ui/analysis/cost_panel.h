#pragma once
// CostPanel: what selection really costs for the current model's architecture, per stage of
// the forward pass and per rule, as stacked bars of measured time or counted FLOPs, with a line
// per rule saying what selection saved (nothing, when every feature was computed before it).

#include <QString>
#include <QWidget>
#include <memory>

#include "models/cost_profile.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace saccade::ui {

class AnalysisJob;
class CostChart;

class CostPanel : public QWidget {
    Q_OBJECT

public:
    explicit CostPanel(QWidget* parent = nullptr);

    void setModel(const QString& checkpoint);
    void run();
    bool isRunning() const;
    /// Show FLOPs (true) or milliseconds.
    void showFlops(bool flops);

    const CostReport* report() const { return m_report.get(); }
    CostChart* chart() const { return m_chart; }
    QString notesText() const;

    QString exportChart(const QString& path);
    QString exportJson(const QString& path) const;

private:
    void showReport();

    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QComboBox* m_unit = nullptr;
    QLabel* m_notes = nullptr;
    CostChart* m_chart = nullptr;
    QWidget* m_export = nullptr;
    AnalysisJob* m_job = nullptr;
    QString m_checkpoint;
    std::shared_ptr<CostReport> m_report;
};

}  // namespace saccade::ui
