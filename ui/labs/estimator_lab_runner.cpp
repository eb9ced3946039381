#include "ui/labs/estimator_lab_runner.h"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace saccade::ui {

namespace {

// Runs on a pool thread: only value types go in and come out.
EstimatorLabRun runEstimatorLabInBackground(EstimatorLabInput input, quint64 generation,
                                            std::shared_ptr<std::atomic<quint64>> newest) {
    return runLab<EstimatorLabResult>(generation, [&] {
        return runEstimatorLab(input, [&](double) { return newest->load() == generation; });
    });
}

}  // namespace

EstimatorLabRunner::EstimatorLabRunner(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<EstimatorLabRun>::finished, this,
            &EstimatorLabRunner::onFinished);
}

EstimatorLabRunner::~EstimatorLabRunner() {
    ++*m_generation;  // the running job stops at its next progress report
    m_watcher.waitForFinished();
}

void EstimatorLabRunner::request(const EstimatorLabInput& input) {
    const quint64 generation = ++*m_generation;
    m_busy = true;
    if (m_watcher.isRunning())
        m_pending = input;
    else
        start(input, generation);
}

void EstimatorLabRunner::cancel() {
    ++*m_generation;
    m_pending.reset();
    m_busy = false;
}

void EstimatorLabRunner::start(const EstimatorLabInput& input, quint64 generation) {
    m_watcher.setFuture(
        QtConcurrent::run(runEstimatorLabInBackground, input, generation, m_generation));
}

void EstimatorLabRunner::onFinished() {
    const EstimatorLabRun run = m_watcher.result();
    if (m_pending) {
        // A newer request arrived while this one ran: start it and drop this result.
        const EstimatorLabInput next = *m_pending;
        m_pending.reset();
        start(next, m_generation->load());
        return;
    }
    if (run.generation != m_generation->load()) return;  // superseded by cancel()
    m_busy = false;
    if (run.result)
        Q_EMIT finished(*run.result);
    else
        Q_EMIT failed(run.error);
}

}  // namespace saccade::ui
