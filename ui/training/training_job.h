#pragma once
// TrainingJob: one training run (any family's trainer) on a thread of its own. Progress comes
// back to the GUI thread at most every 200 ms and after every evaluation; cancel() asks the
// trainer to stop, and it saves the checkpoint before it returns.

#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>

#include <functional>

#include "common/result.h"
#include "train/train_progress.h"

namespace saccade::ui {

class TrainingJob : public QObject {
    Q_OBJECT

public:
    explicit TrainingJob(QObject* parent = nullptr);
    /// Cancels a running job and waits for it to save and stop.
    ~TrainingJob() override;

    /// A trainer of any family: runs with a progress callback that returns false to stop.
    using Trainer = std::function<Result<TrainSummary>(const std::function<bool(const TrainProgress&)>&)>;
    /// Starts training; false when a job is already running.
    bool start(const Trainer& train);
    /// Asks the running job to stop after its current iteration (it saves, then finishes).
    void cancel();
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    void progress(const saccade::TrainProgress& progress);
    /// The job ended: saved (possibly cancelled), or failed with `error`.
    void finished(const saccade::TrainSummary& summary);
    void failed(const QString& error);

private:
    QThread* m_thread = nullptr;
    std::shared_ptr<std::atomic_bool> m_cancel;
    bool m_running = false;
};

}  // namespace saccade::ui
