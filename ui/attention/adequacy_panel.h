#pragma once
// AdequacyPanel: which test images are inadequate observations? Measures every adequacy signal
// of the loaded model on a test split (N sampled runs per image against the deterministic rule),
// draws each signal's risk-coverage curve with its AURC beside the oracle, turns a target
// accuracy into a threshold on the chosen signal (and the coverage it keeps), and lists the
// images that threshold flags: clicking one opens it on the canvas with the same seeds.

#include <QString>
#include <QStringList>
#include <optional>

#include "analysis/runs/adequacy.h"

#include "ui/job_panel.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

class SeriesChart;

class AdequacyPanel : public JobPanel {
    Q_OBJECT

public:
    explicit AdequacyPanel(QWidget* parent = nullptr);

    /// The loaded model: its class names, the datasets its inputs fit, the one to preselect.
    void setModel(const QStringList& classNames, const QStringList& datasets, const QString& preferred);
    /// Asks for a measurement with the panel's settings (what Measure does).
    void run() override;
    void showReport(const AdequacyReport& report, const QString& dataset);
    void clear(const QString& message = {});

    void setLimit(int images);
    void setRuns(int runs);
    void setSignal(AdequacySignal signal);
    void setTargetAccuracy(double fraction);
    AdequacySignal signal() const;
    double targetAccuracy() const;
    /// The threshold the target accuracy gives on the chosen signal (none when no threshold
    /// reaches it, or before a report).
    std::optional<double> threshold() const;
    /// True when a report holds the chosen signal but no threshold on it reaches the target
    /// accuracy: then every image is flagged.
    bool targetUnreachable() const;
    /// The measured value of the chosen signal on test image `index` of `dataset`, when the
    /// report holds it.
    std::optional<double> valueOf(const QString& dataset, qint64 index) const;
    const AdequacyReport* report() const { return m_report ? &*m_report : nullptr; }
    QString thresholdText() const;
    QTableWidget* flaggedTable() const { return m_flagged; }
    QTableWidget* signalTable() const { return m_signals; }
    SeriesChart* chart() const { return m_chart; }

    QString exportCurves(const QString& path);
    QString exportFlagged(const QString& path) const;
    QString exportJson(const QString& path) const;

Q_SIGNALS:
    /// Measure `dataset` with these images, runs and targets (the page adds the seed).
    void measureRequested(const QString& dataset, const saccade::AdequacyOptions& options);
    /// Open test image `index` of `dataset` with the report's run count and seed.
    void imageChosen(const QString& dataset, qint64 index, int runs, quint64 seed);
    /// The chosen signal or its threshold changed (also to "none").
    void thresholdChanged();

protected:
    /// The first time the tab shows for a model, it measures with the defaults.
    void showEvent(QShowEvent* event) override;

private:
    void buildOptions();
    void buildResultViews();
    void buildLayout();
    void connectSignals();
    void maybeMeasure();
    void updateThreshold();
    QString className(int label) const;

    QComboBox* m_dataset = nullptr;
    QSpinBox* m_limit = nullptr;
    QSpinBox* m_runs = nullptr;
    QLabel* m_summary = nullptr;  ///< the status label
    SeriesChart* m_chart = nullptr;
    QTableWidget* m_signals = nullptr;
    QComboBox* m_signal = nullptr;
    QDoubleSpinBox* m_target = nullptr;
    QLabel* m_threshold = nullptr;
    QTableWidget* m_flagged = nullptr;
    QWidget* m_export = nullptr;
    QStringList m_classNames;
    std::optional<AdequacyReport> m_report;
    QString m_measuredDataset;
    bool m_autoMeasure = false;  ///< measure when next shown (a new model, nothing measured yet)
};

}  // namespace saccade::ui
