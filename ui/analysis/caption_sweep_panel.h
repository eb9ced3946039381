#pragma once
// CaptionSweepPanel: a captioner's boundary sweep on the Probes & cost page. One object of the
// scene vocabulary ("small red circle") moves pixel by pixel across a grid line; at each offset
// the caption under the deterministic rule and N sampled captions say whether its colour word
// (and the whole caption) is right, with the attention mass on the object at that word and
// whether the chosen cell hits it. The profile along dx, a table per offset (a row opens that
// probe on the Attention page), and exports; the CLI twin is
// `saccade-cli sweep --model CAPTIONER --object ...`.

#include <QString>
#include <QWidget>
#include <memory>

#include "analysis/caption_sweep.h"
#include "data/image.h"
#include "trace/trace.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

class AnalysisJob;
class SeriesChart;

class CaptionSweepPanel : public QWidget {
    Q_OBJECT

public:
    explicit CaptionSweepPanel(QWidget* parent = nullptr);

    /// The captioner to sweep (its checkpoint and dataset: scenes96 sweeps on its texture).
    void setModel(const QString& checkpoint, const QString& dataset);
    void setObject(const QString& object);
    void setRuns(int runs);
    void run();
    bool isRunning() const;

    const CaptionSweep* result() const { return m_result.get(); }
    SeriesChart* profile() const { return m_profile; }
    QTableWidget* table() const { return m_table; }
    QString summaryText() const;

    QString exportProfile(const QString& path);
    QString exportTable(const QString& path);
    QString exportJson(const QString& path) const;

    /// The probe of the sweep's point `row` (its image, box and caption): what a click on a
    /// table row opens on the Attention page. False without a sweep or outside it.
    bool choose(int row);

Q_SIGNALS:
    void caseChosen(const saccade::Image& image, const QString& id, const saccade::GroundTruth& truth, int runs,
                    quint64 seed);

private:
    void showResult();

    QComboBox* m_object = nullptr;
    QSpinBox* m_runs = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QWidget* m_export = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_summary = nullptr;
    SeriesChart* m_profile = nullptr;
    QTableWidget* m_table = nullptr;
    AnalysisJob* m_job = nullptr;
    QString m_checkpoint, m_dataset;
    std::shared_ptr<const CaptionSweep> m_result;
    CaptionSweepOptions m_resultOptions;  ///< what m_result was swept with (to render a point again)
    int m_resultSize = 0;                 ///< the model's image side at that time
};

}  // namespace saccade::ui
