#include "ui/analysis_job.h"

#include <QLabel>
#include <QMetaObject>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <chrono>
#include <cmath>
#include <exception>

namespace saccade::ui {

AnalysisJob::AnalysisJob(QObject* parent) : QObject(parent) {}

AnalysisJob::~AnalysisJob() {
    if (m_thread) {
        m_cancel->store(true);
        m_retired.push_back(m_thread);
    }
    for (QThread* t : m_retired) {
        t->wait();
        delete t;
    }
}

bool AnalysisJob::start(std::function<QString(const Progress&)> work, std::function<void()> done) {
    // A cancelled job stops at its next progress report; wait for it rather than refuse.
    if (m_running && !(m_cancel && m_cancel->load())) return false;
    for (auto it = m_retired.begin(); it != m_retired.end();)
        if ((*it)->isFinished()) {
            delete *it;
            it = m_retired.erase(it);
        } else {
            ++it;
        }
    if (m_thread) {
        if (m_thread->isFinished())
            delete m_thread;
        else
            m_retired.push_back(m_thread);  // cancelled: it stops at its next progress report
    }
    m_cancel = std::make_shared<std::atomic_bool>(false);
    m_running = true;
    QPointer<AnalysisJob> self(this);
    m_thread = QThread::create([self, cancel = m_cancel, work = std::move(work), done = std::move(done), this] {
        auto post = [&](auto fn) {
            if (self) QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection);
        };
        auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        const Progress progress = [&](double f) {
            const auto now = std::chrono::steady_clock::now();
            if (now - last > std::chrono::milliseconds(100) || f >= 1) {  // at most ten updates a second
                last = now;
                post([this, f, cancel] {
                    // A report still queued when the job was cancelled or forgotten (a model switch) is dropped.
                    if (cancel == m_cancel && !cancel->load()) Q_EMIT this->progress(f);
                });
            }
            return !cancel->load();
        };
        QString error;
        try {
            error = work(progress);
        } catch (const std::exception& e) {
            error = QStringLiteral("internal error: %1").arg(QString::fromUtf8(e.what()));
        }
        post([this, error, done, cancel] {
            if (cancel != m_cancel) return;  // a job replaced after it was cancelled
            m_running = false;
            if (cancel->load()) return;  // cancelled: the panel already said so
            if (error.isEmpty())
                done();
            else
                Q_EMIT failed(error);
        });
    });
    m_thread->setObjectName(QStringLiteral("saccade-analysis"));
    m_thread->start(QThread::LowPriority);
    return true;
}

void AnalysisJob::cancel() {
    if (m_cancel) m_cancel->store(true);
}

bool AnalysisJob::startShown(std::function<QString(const Progress&)> work, std::function<void()> done,
                             const QString& message) {
    auto finished = [this, done = std::move(done)] {
        if (m_runButton) m_runButton->setEnabled(true);
        if (m_cancelButton) m_cancelButton->setEnabled(false);
        if (m_progressBar) m_progressBar->setValue(m_progressBar->maximum());
        done();
    };
    if (!start(std::move(work), std::move(finished))) return false;
    if (m_runButton) m_runButton->setEnabled(false);
    if (m_cancelButton) m_cancelButton->setEnabled(true);
    if (m_progressBar) m_progressBar->setValue(0);
    if (m_message) m_message->setText(message);
    return true;
}

void AnalysisJob::forget() {
    if (m_running && m_cancelButton) m_cancelButton->click();  // stops it and frees the Run button
    else if (m_running) cancel();
    if (m_progressBar) m_progressBar->setValue(0);
}

void bindJobControls(AnalysisJob* job, QPushButton* run, QPushButton* cancel, QProgressBar* progress, QLabel* message) {
    job->m_runButton = run;
    job->m_cancelButton = cancel;
    job->m_progressBar = progress;
    job->m_message = message;
    auto idle = [run, cancel] {
        run->setEnabled(true);
        if (cancel) cancel->setEnabled(false);
    };
    if (cancel)
        QObject::connect(cancel, &QPushButton::clicked, job, [job, idle, message] {
            job->cancel();
            idle();
            message->setText(QObject::tr("Cancelled."));
        });
    if (progress)
        QObject::connect(job, &AnalysisJob::progress, progress,
                         [progress](double f) { progress->setValue(int(std::lround(1000 * f))); });
    QObject::connect(job, &AnalysisJob::failed, message, [idle, message](const QString& error) {
        idle();
        message->setText(QObject::tr("<span style='color:#c33'>%1</span>").arg(error.toHtmlEscaped()));
    });
}

}  // namespace saccade::ui
