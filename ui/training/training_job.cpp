#include "ui/training/training_job.h"

#include <QMetaObject>
#include <QPointer>
#include <chrono>
#include <exception>

namespace saccade::ui {

namespace {
constexpr double kProgressIntervalSeconds = 0.2;
}  // namespace

TrainingJob::TrainingJob(QObject* parent) : QObject(parent) {}

TrainingJob::~TrainingJob() {
    if (m_thread) {
        m_cancel->store(true);
        m_thread->wait();
        delete m_thread;
    }
}

bool TrainingJob::start(const Trainer& train) {
    if (m_running) return false;
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
    m_cancel = std::make_shared<std::atomic_bool>(false);
    m_running = true;
    QPointer<TrainingJob> self(this);
    auto cancel = m_cancel;
    m_thread = QThread::create([self, cancel, train, this] {
        double lastReport = -1;
        auto post = [&](auto fn) {
            if (self) QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection);
        };
        try {
            auto result = train([&](const TrainProgress& p) {
                if (p.evaluated || p.elapsedSeconds - lastReport >= kProgressIntervalSeconds ||
                    p.iteration == p.total) {
                    lastReport = p.elapsedSeconds;
                    post([this, p] { Q_EMIT progress(p); });
                }
                return !cancel->load();
            });
            if (result) {
                post([this, summary = *result] {
                    m_running = false;
                    Q_EMIT finished(summary);
                });
            } else {
                post([this, error = QString::fromStdString(result.error())] {
                    m_running = false;
                    Q_EMIT failed(error);
                });
            }
        } catch (const std::exception& e) {
            post([this, error = QString::fromUtf8(e.what())] {
                m_running = false;
                Q_EMIT failed(QStringLiteral("internal error: %1").arg(error));
            });
        }
    });
    m_thread->setObjectName(QStringLiteral("saccade-train"));
    m_thread->start(QThread::LowPriority);
    return true;
}

void TrainingJob::cancel() {
    if (m_cancel) m_cancel->store(true);
}

}  // namespace saccade::ui
