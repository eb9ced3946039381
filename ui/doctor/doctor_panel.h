#pragma once
// The "Doctor" page: what this machine gives the engine, measured on a worker thread.

#include <QFutureWatcher>
#include <QString>
#include <QWidget>
#include <optional>

#include "doctor/doctor.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace saccade::ui {

/// What one doctor run gives back to the GUI thread.
struct DoctorRun {
    std::optional<DoctorReport> report;
    QString error;
};

/// Runs saccade::runDoctor (about a second) with QtConcurrent the first time the page is shown
/// and on "Run again"; shows a busy bar meanwhile, then the report with warnings highlighted.
class DoctorPanel : public QWidget {
    Q_OBJECT

public:
    explicit DoctorPanel(QWidget* parent = nullptr);
    ~DoctorPanel() override;

    bool isRunning() const { return m_watcher.isRunning(); }
    /// True once a run has finished (with a report or an error).
    bool hasFinished() const { return m_finished; }
    /// The report as shown: core's text plus the Qt version.
    QString reportText() const;
    /// The headline above the report ("123.4 GFLOP/s ...").
    QString summaryText() const;

public Q_SLOTS:
    /// Starts a run unless one is in flight.
    void run();

Q_SIGNALS:
    void statusMessage(const QString& message);
    /// Emitted on the GUI thread when a run ends.
    void finished();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void onFinished();
    void showReport(const DoctorReport& report);
    void highlightWarnings(const DoctorReport& report);

    QLabel* m_summary = nullptr;
    QLabel* m_warnings = nullptr;
    QProgressBar* m_busy = nullptr;
    QPushButton* m_runAgain = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QFutureWatcher<DoctorRun> m_watcher;
    bool m_started = false;
    bool m_finished = false;
};

}  // namespace saccade::ui
