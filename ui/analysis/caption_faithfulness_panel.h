#pragma once
// CaptionFaithfulnessPanel: the Faithfulness tab for a captioner. Per object word of the first N
// test scenes: the attention mass on the object it names, and the deletion test (occlude the
// word's most attended cells, or as many random ones, and decode again: is the word still
// there?). The CLI twin is `saccade-cli faithfulness --model CAPTIONER`.

#include <QString>
#include <QWidget>
#include <memory>

#include "analysis/caption_faithfulness.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace saccade::ui {

class AnalysisJob;
class SeriesChart;

class CaptionFaithfulnessPanel : public QWidget {
    Q_OBJECT

public:
    explicit CaptionFaithfulnessPanel(QWidget* parent = nullptr);

    void setModel(const QString& checkpoint, const QString& dataset);
    void setScenes(int scenes);
    void run();
    bool isRunning() const;

    const CaptionFaithfulness* report() const { return m_report.get(); }
    SeriesChart* deletionChart() const { return m_deletion; }
    QString summaryText() const;

    QString exportDeletion(const QString& path);
    QString exportJson(const QString& path) const;

private:
    void showReport();

    QSpinBox* m_scenes = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QWidget* m_export = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_summary = nullptr;
    SeriesChart* m_deletion = nullptr;
    AnalysisJob* m_job = nullptr;
    QString m_checkpoint, m_dataset;
    std::shared_ptr<const CaptionFaithfulness> m_report;
};

}  // namespace saccade::ui
