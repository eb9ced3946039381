#pragma once
// Runs the scalar lab's Monte-Carlo off the GUI thread; the newest request wins.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <optional>

#include "analysis/labs/scalar_lab.h"
#include "ui/labs/lab_run.h"

namespace saccade::ui {

/// What one background run gives back: a result or an error message.
using ScalarLabRun = LabRun<ScalarLabResult>;

/// At most one run is in flight (QtConcurrent on the global pool). A request made while one
/// runs replaces any request still waiting; results of superseded requests are dropped, so
/// finished() only ever reports the newest request.
class ScalarLabRunner : public QObject {
    Q_OBJECT

public:
    explicit ScalarLabRunner(QObject* parent = nullptr);
    ~ScalarLabRunner() override;

    /// Queues `input`; any earlier request is superseded.
    void request(const ScalarLabInput& input);
    /// Supersedes every request without making a new one (the caller computed synchronously).
    void cancel();
    /// True while the newest request has not been reported yet.
    bool isBusy() const { return m_busy; }

Q_SIGNALS:
    void finished(const saccade::ScalarLabResult& result);
    void failed(const QString& message);

private:
    void start(const ScalarLabInput& input, quint64 generation);
    void onFinished();

    QFutureWatcher<ScalarLabRun> m_watcher;
    std::optional<ScalarLabInput> m_pending;
    quint64 m_generation = 0;
    bool m_busy = false;
};

}  // namespace saccade::ui
