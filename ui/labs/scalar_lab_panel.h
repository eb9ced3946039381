#pragma once
// The "Scalar lab" page: inputs, the numbers and the chart of E[f(hard)] against f(soft).

#include <QString>
#include <QWidget>

#include "analysis/labs/scalar_lab.h"

class QLabel;
class QSettings;

namespace saccade::ui {

class ScalarLabChart;
class ScalarLabForm;
class ScalarLabResultView;
class ScalarLabRunner;

/// Recomputes on every edit. Exact numbers are computed at once on the GUI thread (they cost
/// microseconds); Monte-Carlo runs above kSyncSampleLimit go to a ScalarLabRunner, because
/// 1e6 samples take about 20 ms (measured: 21 ms for 3 values, 43 ms for 50).
class ScalarLabPanel : public QWidget {
    Q_OBJECT

public:
    static constexpr int kSyncSampleLimit = 100'000;

    explicit ScalarLabPanel(QWidget* parent = nullptr);

    ScalarLabForm* form() const { return m_form; }
    ScalarLabResultView* resultView() const { return m_results; }
    ScalarLabChart* chart() const { return m_chart; }

    /// The error shown, or empty when the inputs are valid.
    QString errorText() const;
    /// True while a background Monte-Carlo run for the current inputs is unfinished.
    bool isBusy() const;

    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings);

public Q_SLOTS:
    void recompute();

Q_SIGNALS:
    /// A one-line summary for the status bar.
    void statusMessage(const QString& message);

private:
    void showResult(const ScalarLabResult& result, bool monteCarloPending);
    void showError(const QString& message);

    ScalarLabForm* m_form = nullptr;
    ScalarLabResultView* m_results = nullptr;
    ScalarLabChart* m_chart = nullptr;
    ScalarLabRunner* m_runner = nullptr;
    QLabel* m_error = nullptr;
};

}  // namespace saccade::ui
