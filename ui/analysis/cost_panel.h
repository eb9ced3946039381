#pragma once
// CostPanel: what selection really costs for the current model's architecture, per stage of
// the forward pass and per rule, as stacked bars of measured time or counted FLOPs, with a line
// per rule saying what selection saved (nothing, when every feature was computed before it).

#include <QString>
#include <memory>

#include "models/cost_profile.h"

#include "ui/job_panel.h"

class QComboBox;
class QLabel;

namespace saccade::ui {

class CostChart;

class CostPanel : public JobPanel {
    Q_OBJECT

public:
    explicit CostPanel(QWidget* parent = nullptr);

    void setModel(const QString& checkpoint);
    void run() override;
    /// Show FLOPs (true) or milliseconds.
    void showFlops(bool flops);

    const CostReport* report() const { return m_report.get(); }
    CostChart* chart() const { return m_chart; }
    QString notesText() const;

    QString exportChart(const QString& path);
    QString exportJson(const QString& path) const;

private:
    void showReport();
    void clearResult() override;

    QComboBox* m_unit = nullptr;
    QLabel* m_notes = nullptr;  ///< the status label
    CostChart* m_chart = nullptr;
    QWidget* m_export = nullptr;
    std::shared_ptr<CostReport> m_report;
};

}  // namespace saccade::ui
