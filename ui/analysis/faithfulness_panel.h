#pragma once
// FaithfulnessPanel: does attention mean what it seems to? On the current model and the first
// N test images: attention mass in the ground-truth box and the pointing game per step, deletion
// curves (the most attended cells against random ones), the rank correlation with occlusion
// saliency, and a reliability diagram of attention as the probability of the object. The caveat
// that attention records access and does not explain is stated above the figures. The data is the
// model's dataset or a folder of the user's images ("Image folder…"), which have no boxes.

#include <QString>
#include <QStringList>
#include <memory>

#include "analysis/attribution/faithfulness.h"

#include "ui/job_panel.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

/// The caveat every faithfulness view states first ("a record of access, not an explanation"),
/// as a highlighted label.
QLabel* makeAttentionCaveat(QWidget* parent);

class ImageFolderEntry;
class SeriesChart;

class FaithfulnessPanel : public JobPanel {
    Q_OBJECT

public:
    explicit FaithfulnessPanel(QWidget* parent = nullptr);

    void setModel(const QString& checkpoint, const QString& dataset, const QStringList& rules = {},
                  const QString& deterministicRule = {});
    void setImages(int images, int saliencyImages);
    /// Measures on this dataset or image folder (listed first when it is a folder).
    void setData(const QString& dataset);
    QString data() const;
    /// Whose maps to measure: "" (the model's deterministic rule) or "rollout" (transformers).
    void setMapRule(const QString& rule);
    void run() override;

    const FaithfulnessReport* report() const { return m_report.get(); }
    QTableWidget* stepTable() const { return m_steps; }
    SeriesChart* deletionChart() const { return m_deletion; }
    SeriesChart* reliabilityChart() const { return m_reliability; }
    QString caveatText() const;

    QString exportSteps(const QString& path) const;
    QString exportDeletion(const QString& path);
    QString exportReliability(const QString& path);
    QString exportJson(const QString& path) const;

private:
    void showReport();
    void buildDataChooser();
    void clearResult() override;

    QSpinBox* m_images = nullptr;
    QSpinBox* m_saliency = nullptr;
    QComboBox* m_map = nullptr;
    QComboBox* m_data = nullptr;  ///< the model's dataset, the user's folders, "Image folder…"
    ImageFolderEntry* m_folders = nullptr;
    QLabel* m_caveat = nullptr;
    QLabel* m_summary = nullptr;  ///< the status label
    QTableWidget* m_steps = nullptr;
    SeriesChart* m_deletion = nullptr;
    SeriesChart* m_reliability = nullptr;
    QWidget* m_export = nullptr;
    std::shared_ptr<FaithfulnessReport> m_report;
    QString m_modelData;  ///< the model's own dataset, listed first
};

}  // namespace saccade::ui
