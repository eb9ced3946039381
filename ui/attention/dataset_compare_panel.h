#pragma once
// DatasetComparePanel: every rule of the loaded model on a test split, side by side. Accuracy
// with its 95% interval (and whether the rule is the one the model was trained under), accuracy
// against K for ksample as a chart, and a browser of exactly the images on which sample and the
// deterministic rule (argmax, or the mean for RAM) disagree: clicking one opens it on the canvas.
// A model without sampled runs (a transformer) has its rules compared instead: accuracy, mass in
// box and pointing game per rule ("not measured" without boxes), and how often two rules' maps
// peak at the same cell.
// Charts and tables export to PNG, SVG and CSV, the whole comparison to JSON.

#include <QString>
#include <QStringList>
#include <optional>

#include "analysis/runs/dataset_comparison.h"
#include "analysis/runs/rule_comparison.h"

#include "ui/job_panel.h"

class QComboBox;
class QToolButton;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

class BandChart;
class ImageFolderEntry;

class DatasetComparePanel : public JobPanel {
    Q_OBJECT

public:
    explicit DatasetComparePanel(QWidget* parent = nullptr);

    /// The loaded model: its class names, the datasets its inputs fit, the one to preselect,
    /// and its deterministic rule (argmax or mean).
    void setModel(const QStringList& classNames, const QStringList& datasets, const QString& preferred,
                  const QString& deterministicRule);
    /// Asks for a comparison with the panel's settings (what Compare does).
    void run() override;
    void showComparison(const DatasetComparison& comparison, const QString& dataset);
    void showRuleComparison(const RuleComparison& comparison, const QString& dataset);
    void clear(const QString& message = {});

    QString dataset() const;
    /// Adds a folder of the user's images (FOLDER/CLASS_NAME/IMAGE.png) to the datasets and selects
    /// it; its images are checked when the comparison opens it. Empty on success, else why not.
    QString addImageFolder(const QString& folder);
    qint64 limit() const;
    void setLimit(qint64 images);
    QTableWidget* accuracyTable() const { return m_accuracy; }
    QTableWidget* disagreementTable() const { return m_disagree; }
    BandChart* kChart() const { return m_kChart; }
    const DatasetComparison* comparison() const { return m_comparison ? &*m_comparison : nullptr; }
    const RuleComparison* ruleComparison() const { return m_rules ? &*m_rules : nullptr; }

    /// Exports by the suffix of `path`; empty on success.
    QString exportAccuracy(const QString& path) const;
    QString exportKCurve(const QString& path);
    QString exportDisagreements(const QString& path) const;
    QString exportJson(const QString& path) const;

Q_SIGNALS:
    void compareRequested(const QString& dataset, qint64 limit);
    /// Open test image `index` of `dataset` on the canvas under sample with `seed`, the seed the
    /// comparison drew its sample answer with (evaluationSeed).
    void imageChosen(const QString& dataset, qint64 index, quint64 seed);

private:
    void buildResultViews();
    void buildLayout();
    void connectSignals();
    void setSampledHeaders(bool sampled);
    QString className(int label) const;

    QComboBox* m_dataset = nullptr;
    ImageFolderEntry* m_folderEntry = nullptr;
    QSpinBox* m_limit = nullptr;
    QLabel* m_summary = nullptr;  ///< the status label
    QTableWidget* m_accuracy = nullptr;
    BandChart* m_kChart = nullptr;
    QLabel* m_disagreeNote = nullptr;
    QTableWidget* m_disagree = nullptr;
    QWidget* m_export = nullptr;
    QStringList m_classNames;
    std::optional<DatasetComparison> m_comparison;
    std::optional<RuleComparison> m_rules;
    QString m_comparedDataset;
};

}  // namespace saccade::ui
