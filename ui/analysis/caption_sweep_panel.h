#pragma once
// CaptionSweepPanel: a captioner's boundary sweep on the Probes & cost page. One object of the
// scene vocabulary ("small red circle") moves pixel by pixel across a grid line; at each offset
// the caption under the deterministic rule and N sampled captions say whether its colour word
// (and the whole caption) is right, with the attention mass on the object at that word and
// whether the chosen cell hits it. The profile along dx, a table per offset (a row opens that
// probe on the Attention page), and exports; the CLI twin is
// `saccade-cli sweep --model CAPTIONER --object ...`.

#include <QString>
#include <memory>

#include "analysis/runs/caption_sweep.h"
#include "data/image.h"
#include "trace/trace.h"

#include "ui/job_panel.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

class SeriesChart;

class CaptionSweepPanel : public JobPanel {
    Q_OBJECT

public:
    explicit CaptionSweepPanel(QWidget* parent = nullptr);

    /// The captioner to sweep (its checkpoint and dataset: scenes96 sweeps on its texture).
    void setModel(const QString& checkpoint, const QString& dataset);
    void setObject(const QString& object);
    void setRuns(int runs);
    void run() override;

    const CaptionSweep* result() const { return m_result.get(); }
    SeriesChart* profile() const { return m_profile; }
    QTableWidget* table() const { return m_table; }

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
    void clearResult() override;

    QComboBox* m_object = nullptr;
    QSpinBox* m_runs = nullptr;
    QWidget* m_export = nullptr;
    QLabel* m_summary = nullptr;  ///< the status label
    SeriesChart* m_profile = nullptr;
    QTableWidget* m_table = nullptr;
    std::shared_ptr<const CaptionSweep> m_result;
    CaptionSweepOptions m_resultOptions;  ///< what m_result was swept with (to render a point again)
    int m_resultSize = 0;                 ///< the model's image side at that time
};

}  // namespace saccade::ui
