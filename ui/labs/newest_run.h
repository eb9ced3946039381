#pragma once
// NewestRun: one lab's background runs, of which only the newest request counts (the scalar and
// estimator labs' runners hold one). At most one run is in flight (QtConcurrent on the global
// pool); only value types go in and come out. A request made while one runs replaces any request
// still waiting, and the running one learns through `current()` that it has been superseded (a
// lab that checks it stops early); a superseded run's result is dropped, so `report` only ever
// sees the newest request's.

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "common/result.h"
#include "ui/labs/lab_run.h"

namespace saccade::ui {

template <typename Input, typename Output>
class NewestRun {
public:
    /// `current()` is false once a newer request or cancel() has superseded the run.
    using Compute = std::function<saccade::Result<Output>(const Input& input, const std::function<bool()>& current)>;

    /// `report` runs on `context`'s thread with the newest request's result or error.
    NewestRun(QObject* context, Compute compute, std::function<void(const LabRun<Output>&)> report)
        : m_compute(std::move(compute)), m_report(std::move(report)) {
        QObject::connect(&m_watcher, &QFutureWatcher<LabRun<Output>>::finished, context, [this] { onFinished(); });
    }
    ~NewestRun() {
        ++*m_generation;  // a run that checks current() stops at its next check
        m_watcher.waitForFinished();
    }
    NewestRun(const NewestRun&) = delete;
    NewestRun& operator=(const NewestRun&) = delete;

    /// Queues `input`; any earlier request is superseded.
    void request(const Input& input) {
        const quint64 generation = ++*m_generation;
        m_busy = true;
        if (m_watcher.isRunning())
            m_pending = input;
        else
            start(input, generation);
    }
    /// Supersedes every request without making a new one.
    void cancel() {
        ++*m_generation;
        m_pending.reset();
        m_busy = false;
    }
    /// True while the newest request has not been reported yet.
    bool isBusy() const { return m_busy; }

private:
    void start(const Input& input, quint64 generation) {
        m_watcher.setFuture(QtConcurrent::run([compute = m_compute, newest = m_generation, input, generation] {
            return runLab<Output>(generation, [&] { return compute(input, [&] { return newest->load() == generation; }); });
        }));
    }
    void onFinished() {
        const LabRun<Output> run = m_watcher.result();
        if (m_pending) {  // a newer request arrived while this one ran: start it and drop this result
            const Input next = *m_pending;
            m_pending.reset();
            start(next, m_generation->load());
            return;
        }
        if (run.generation != m_generation->load()) return;  // superseded by cancel()
        m_busy = false;
        m_report(run);
    }

    Compute m_compute;
    std::function<void(const LabRun<Output>&)> m_report;
    QFutureWatcher<LabRun<Output>> m_watcher;
    std::optional<Input> m_pending;
    std::shared_ptr<std::atomic<quint64>> m_generation = std::make_shared<std::atomic<quint64>>(0);
    bool m_busy = false;
};

}  // namespace saccade::ui
