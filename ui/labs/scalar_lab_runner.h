#pragma once
// Runs the scalar lab's Monte-Carlo off the GUI thread; the newest request wins (NewestRun).

#include <QObject>
#include <QString>

#include "analysis/labs/scalar_lab.h"
#include "ui/labs/newest_run.h"

namespace saccade::ui {

/// What one background run gives back: a result or an error message.
using ScalarLabRun = LabRun<ScalarLabResult>;

/// finished() and failed() only ever report the newest request.
class ScalarLabRunner : public QObject {
    Q_OBJECT

public:
    explicit ScalarLabRunner(QObject* parent = nullptr);

    /// Queues `input`; any earlier request is superseded.
    void request(const ScalarLabInput& input) { m_run.request(input); }
    /// Supersedes every request without making a new one (the caller computed synchronously).
    void cancel() { m_run.cancel(); }
    /// True while the newest request has not been reported yet.
    bool isBusy() const { return m_run.isBusy(); }

Q_SIGNALS:
    void finished(const saccade::ScalarLabResult& result);
    void failed(const QString& message);

private:
    NewestRun<ScalarLabInput, ScalarLabResult> m_run;
};

}  // namespace saccade::ui
