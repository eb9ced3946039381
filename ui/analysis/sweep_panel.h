#pragma once
// SweepPanel: the boundary-case explorer. A probe object (a test item or a small blob, on a clean
// or cluttered canvas) moved pixel by pixel across two of the model's cells (patch grid) or
// glimpses, with the deterministic rule and N sampled runs at each offset. A failure map of the
// chosen metric with the grid lines drawn, the same figures along dx at one dy, and the worst
// positions; clicking a position or a row opens that case on the Attention page with its runs.

#include <QString>
#include <memory>
#include <vector>

#include "analysis/runs/boundary_sweep.h"
#include "data/image.h"
#include "trace/trace.h"

#include "ui/job_panel.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

class SeriesChart;
class SweepMapView;

class SweepPanel : public JobPanel {
    Q_OBJECT

public:
    explicit SweepPanel(QWidget* parent = nullptr);

    /// The model to sweep (a checkpoint) and the dataset its items and clutter come from.
    void setModel(const QString& checkpoint, const QString& dataset);
    /// Starts a sweep with the panel's settings (what Run does).
    void run() override;
    void setRuns(int runs);
    void setObject(const QString& object);  ///< "item" or "blob"
    /// Repeat the sweep for each value of "size" or "distractors" (empty: one sweep).
    void setSeries(const QString& vary, const QString& values);

    const SweepResult* result() const { return m_result.get(); }
    SweepMapView* map() const { return m_map; }
    SeriesChart* profile() const { return m_profile; }
    /// The means of each sweep of a size or clutter series against the value.
    SeriesChart* seriesChart() const { return m_seriesChart; }
    const std::vector<SweepSummary>& series() const { return m_series; }
    QTableWidget* worstTable() const { return m_worst; }
    /// Selects the row dy of the profile chart.
    void showProfile(int dy);

    QString exportMap(const QString& path);
    QString exportProfile(const QString& path);
    QString exportWorst(const QString& path) const;
    QString exportJson(const QString& path) const;
    QString exportSeries(const QString& path);

Q_SIGNALS:
    /// Open this probe on the canvas with `runs` sampled runs.
    void caseChosen(const saccade::Image& image, const QString& id, const saccade::GroundTruth& truth, int runs,
                    quint64 seed);

private:
    void buildOptions();
    void buildResultViews();
    void buildLayout();
    void connectSignals();
    void clearResult() override;
    void showResult();
    void choose(int dx, int dy);
    SweepMetric metric() const;

    QComboBox* m_object = nullptr;
    QSpinBox* m_item = nullptr;
    QSpinBox* m_size = nullptr;
    QSpinBox* m_distractors = nullptr;
    QSpinBox* m_runs = nullptr;
    QComboBox* m_metric = nullptr;
    QComboBox* m_vary = nullptr;
    QLineEdit* m_values = nullptr;
    QTabWidget* m_charts = nullptr;
    SeriesChart* m_seriesChart = nullptr;
    std::vector<SweepSummary> m_series;
    QString m_seriesName;
    QLabel* m_summary = nullptr;  ///< the status label
    SweepMapView* m_map = nullptr;
    SeriesChart* m_profile = nullptr;
    QTableWidget* m_worst = nullptr;
    QWidget* m_export = nullptr;
    std::shared_ptr<SweepResult> m_result;
    QString m_resultDataset;  ///< the dataset the shown sweep's items and clutter came from
    int m_profileRow = 0;
};

}  // namespace saccade::ui
