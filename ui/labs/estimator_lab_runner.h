#pragma once
// Runs the estimator lab off the GUI thread; the newest request wins and superseded runs stop at
// their next progress report.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>

#include "analysis/labs/estimator_lab.h"
#include "ui/labs/lab_run.h"

namespace saccade::ui {

/// What one background run gives back: a result or an error message.
using EstimatorLabRun = LabRun<EstimatorLabResult>;

/// At most one run is in flight (QtConcurrent on the global pool); LibTorch state stays on that
/// thread and only the value-type result crosses back. A request made while one runs replaces
/// any request still waiting and cancels the running one through its progress callback (an
/// atomic generation counter, read on the worker); finished() and failed() only ever report the
/// newest request.
class EstimatorLabRunner : public QObject {
    Q_OBJECT

public:
    explicit EstimatorLabRunner(QObject* parent = nullptr);
    ~EstimatorLabRunner() override;

    void request(const EstimatorLabInput& input);
    /// Supersedes every request without making a new one.
    void cancel();
    /// True while the newest request has not been reported yet.
    bool isBusy() const { return m_busy; }

Q_SIGNALS:
    void finished(const saccade::EstimatorLabResult& result);
    void failed(const QString& message);

private:
    void start(const EstimatorLabInput& input, quint64 generation);
    void onFinished();

    QFutureWatcher<EstimatorLabRun> m_watcher;
    std::optional<EstimatorLabInput> m_pending;
    std::shared_ptr<std::atomic<quint64>> m_generation = std::make_shared<std::atomic<quint64>>(0);
    bool m_busy = false;
};

}  // namespace saccade::ui
