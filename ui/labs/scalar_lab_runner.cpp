#include "ui/labs/scalar_lab_runner.h"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace saccade::ui {

namespace {

// Runs on a pool thread: only value types go in and come out.
ScalarLabRun runScalarLabInBackground(ScalarLabInput input, quint64 generation) {
    return runLab<ScalarLabResult>(generation, [&] { return runScalarLab(input); });
}

}  // namespace

ScalarLabRunner::ScalarLabRunner(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<ScalarLabRun>::finished, this,
            &ScalarLabRunner::onFinished);
}

ScalarLabRunner::~ScalarLabRunner() {
    // The job holds only its own copy of the input, so it may outlive us; but waiting (at most
    // one run of <= 1e6 samples, tens of milliseconds) keeps shutdown tidy.
    m_watcher.waitForFinished();
}

void ScalarLabRunner::request(const ScalarLabInput& input) {
    ++m_generation;
    m_busy = true;
    if (m_watcher.isRunning())
        m_pending = input;
    else
        start(input, m_generation);
}

void ScalarLabRunner::cancel() {
    ++m_generation;
    m_pending.reset();
    m_busy = false;
}

void ScalarLabRunner::start(const ScalarLabInput& input, quint64 generation) {
    m_watcher.setFuture(QtConcurrent::run(runScalarLabInBackground, input, generation));
}

void ScalarLabRunner::onFinished() {
    const ScalarLabRun run = m_watcher.result();
    if (m_pending) {
        // A newer request arrived while this one ran: start it and drop this result.
        const ScalarLabInput next = *m_pending;
        m_pending.reset();
        start(next, m_generation);
        return;
    }
    if (run.generation != m_generation) return;  // superseded by cancel()
    m_busy = false;
    if (run.result)
        Q_EMIT finished(*run.result);
    else
        Q_EMIT failed(run.error);
}

}  // namespace saccade::ui
