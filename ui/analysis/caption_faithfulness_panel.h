#pragma once
// CaptionFaithfulnessPanel: the Faithfulness tab for a captioner. Per object word of the first N
// test scenes: the attention mass on the object it names, and the deletion test (occlude the
// word's most attended cells, or as many random ones, and decode again: is the word still
// there?). The CLI twin is `saccade-cli faithfulness --model CAPTIONER`.

#include <QString>
#include <memory>

#include "analysis/attribution/caption_faithfulness.h"

#include "ui/job_panel.h"

class QLabel;
class QSpinBox;

namespace saccade::ui {

class SeriesChart;

class CaptionFaithfulnessPanel : public JobPanel {
    Q_OBJECT

public:
    explicit CaptionFaithfulnessPanel(QWidget* parent = nullptr);

    void setModel(const QString& checkpoint, const QString& dataset);
    void setScenes(int scenes);
    void run() override;

    const CaptionFaithfulness* report() const { return m_report.get(); }
    SeriesChart* deletionChart() const { return m_deletion; }

    QString exportDeletion(const QString& path);
    QString exportJson(const QString& path) const;

private:
    void showReport();
    void clearResult() override;

    QSpinBox* m_scenes = nullptr;
    QWidget* m_export = nullptr;
    QLabel* m_summary = nullptr;  ///< the status label
    SeriesChart* m_deletion = nullptr;
    std::shared_ptr<const CaptionFaithfulness> m_report;
};

}  // namespace saccade::ui
