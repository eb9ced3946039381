#pragma once
// AnalysisJob: one long analysis (a boundary sweep, a faithfulness measurement, a cost profile)
// on a thread of its own, with progress and cancel. The work loads its own model on that thread,
// so no LibTorch state is shared with the GUI's model service.

#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "common/progress.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace saccade::ui {

class AnalysisJob : public QObject {
    Q_OBJECT

public:
    explicit AnalysisJob(QObject* parent = nullptr);
    /// Cancels a running job and waits for it.
    ~AnalysisJob() override;

    /// Runs `work` on the job's thread; it reports progress through the callback (which returns
    /// false once cancelled) and returns an error message or an empty string. On success `done`
    /// runs on this object's thread. False when a job is already running (a cancelled one is
    /// left to finish its current step in the background, and replaced).
    bool start(std::function<QString(const Progress&)> work, std::function<void()> done);
    /// start() with the controls bindJobControls gave it: their running state at once (Run off,
    /// Cancel on, progress 0, `message` shown), and their idle state (progress full) just before
    /// `done` runs.
    bool startShown(std::function<QString(const Progress&)> work, std::function<void()> done, const QString& message);
    void cancel();
    /// Another model: a running job is cancelled and its controls go idle, with the progress bar
    /// back at 0 (a full bar would claim a result the new model does not have).
    void forget();
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    void progress(double fraction);
    void failed(const QString& message);

private:
    friend void bindJobControls(AnalysisJob*, QPushButton*, QPushButton*, QProgressBar*, QLabel*);

    QThread* m_thread = nullptr;
    QPushButton* m_runButton = nullptr;  ///< the bound controls (children of the job's panel)
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QLabel* m_message = nullptr;
    std::vector<QThread*> m_retired;  ///< cancelled jobs still finishing their current step
    std::shared_ptr<std::atomic_bool> m_cancel;
    bool m_running = false;
};

/// The controls every analysis panel gives its job: `cancel` stops it and says so in `message`,
/// `progress` (0..1000) follows it, and a failure shows in red in `message`; both re-enable `run`.
/// `cancel` and `progress` may be null.
void bindJobControls(AnalysisJob* job, QPushButton* run, QPushButton* cancel, QProgressBar* progress, QLabel* message);

}  // namespace saccade::ui
