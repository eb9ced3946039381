#pragma once
// The "Estimator lab" page: gradient estimators of dE[r]/d logits on a categorical, against the
// exact gradient. Left: the inputs and the exact figures. Right: histograms of one logit's
// one-sample estimates per estimator, the table of bias and variance, and the probabilities
// under gradient ascent with each estimator.

#include <QString>
#include <QWidget>
#include <optional>

#include "analysis/labs/estimator_lab.h"

class QComboBox;
class QLabel;
class QTimer;

namespace saccade::ui {

class EstimatorLabForm;
class EstimatorLabHistograms;
class EstimatorLabRunner;
class EstimatorLabTable;
class EstimatorLabTrajectories;

/// Runs the inputs when first shown (so the application's start does not pay for a page nobody
/// opened) and after every edit (debounced by kEditDelayMs), on an EstimatorLabRunner, so the
/// page stays responsive: the defaults take about half a second. An input error is shown in one
/// line and the previous result stays on screen.
class EstimatorLabPanel : public QWidget {
    Q_OBJECT

public:
    static constexpr int kEditDelayMs = 300;

    explicit EstimatorLabPanel(QWidget* parent = nullptr);

    EstimatorLabForm* form() const { return m_form; }
    EstimatorLabTable* table() const { return m_table; }
    EstimatorLabHistograms* histograms() const { return m_histograms; }
    EstimatorLabTrajectories* trajectories() const { return m_trajectories; }
    QComboBox* logitCombo() const { return m_logit; }

    /// The result on screen (possibly older than an input error shown above it).
    const std::optional<EstimatorLabResult>& result() const { return m_result; }
    /// The error shown, or empty.
    QString errorText() const;
    /// True while an edit waits for its run or a run is unfinished (and, once shown, before the
    /// first run).
    bool isBusy() const;

public Q_SLOTS:
    /// Runs the current inputs now (edits schedule this after kEditDelayMs).
    void run();

Q_SIGNALS:
    /// A one-line summary for the status bar.
    void statusMessage(const QString& message);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showResult(const EstimatorLabResult& result);
    void showLogit();
    void showError(const QString& message);

    EstimatorLabForm* m_form = nullptr;
    EstimatorLabTable* m_table = nullptr;
    EstimatorLabHistograms* m_histograms = nullptr;
    EstimatorLabTrajectories* m_trajectories = nullptr;
    EstimatorLabRunner* m_runner = nullptr;
    QComboBox* m_logit = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_trainingTitle = nullptr;
    QTimer* m_editTimer = nullptr;
    std::optional<EstimatorLabResult> m_result;
    bool m_started = false;  // run() has been called at least once
};

}  // namespace saccade::ui
