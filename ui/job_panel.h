#pragma once
// JobPanel: the base of the panels that run one long job and show its result (the Probes & cost
// page's sweeps, faithfulness and cost; the Attention page's Dataset and Adequacy tabs). It holds
// what they all had: Run and Cancel, the progress bar (0..1000), the status label, the job, and
// the model the shown result belongs to. A panel adds its options, its job and its result view,
// and places the controls in its own layout.
//
// The job runs either on a thread of the panel's own (startJob: an AnalysisJob), or elsewhere
// (the model service): then the panel says it asked for one (showRequested), and whoever runs it
// reports back (setProgress, showArrived, showError) and hears cancelRequested.

#include <QList>
#include <QString>
#include <QWidget>
#include <functional>

#include "ui/analysis_job.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace saccade::ui {

class JobPanel : public QWidget {
    Q_OBJECT

public:
    /// Starts a job with the panel's settings: what Run does.
    virtual void run() = 0;
    /// A job of the panel runs (its own, or one it asked for).
    bool isRunning() const;
    /// The status label's text (rich text: the summary of a result, a message, an error).
    QString summaryText() const;

    /// The fraction done of a job run elsewhere, 0..1.
    void setProgress(double fraction);
    /// A job failed (or was stopped): the controls go idle and `message` shows in red.
    void showError(const QString& message);

Q_SIGNALS:
    /// Cancel while a job asked for (showRequested) runs: whoever runs it stops it.
    void cancelRequested();

protected:
    explicit JobPanel(QWidget* parent = nullptr);

    /// Creates Run (`runText`, object name `runName`), Cancel (off), the progress bar and the
    /// status label (word-wrapped), and wires them: Run calls run(). Call it where the panel's
    /// focus order wants Run and Cancel.
    void buildJobControls(const QString& runText, const QString& runName);
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }

    /// Runs `work` on the panel's job thread: Run off, Cancel on, progress 0 and `message` at
    /// once; on success the controls go idle with the progress full and `done` runs. A failure
    /// shows in red; Cancel says "Cancelled.". False when a job already runs.
    bool startJob(std::function<QString(const Progress&)> work, std::function<void()> done, const QString& message);

    /// A job asked for elsewhere: Run off, Cancel on, the inputs (setJobInputs) off, progress 0,
    /// `message` shown.
    void showRequested(const QString& message);
    /// Its result came: the controls go idle, the progress bar full.
    void showArrived();
    /// Nothing runs (a cleared panel): the controls idle, the progress bar empty.
    void showIdle();
    /// The widgets a job asked for (showRequested) turns off until it ends.
    void setJobInputs(const QList<QWidget*>& inputs) { m_inputs = inputs; }

    /// The model (checkpoint, and the dataset it goes with) the panel works on. Another
    /// checkpoint than before forgets the running job (its controls go idle, the progress bar
    /// empty) and the shown result (clearResult()); true then.
    bool adoptModel(const QString& checkpoint, const QString& dataset = {});
    const QString& modelCheckpoint() const { return m_checkpoint; }
    const QString& modelDataset() const { return m_dataset; }
    /// The checkpoint's file name.
    QString modelName() const;
    /// Drops the shown result: it belongs to another model.
    virtual void clearResult() {}

private:
    void setIdle();

    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    AnalysisJob* m_job = nullptr;
    QList<QWidget*> m_inputs;
    QString m_checkpoint, m_dataset;
    bool m_requested = false;  ///< a job asked for elsewhere runs
};

}  // namespace saccade::ui
