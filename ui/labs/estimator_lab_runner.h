#pragma once
// Runs the estimator lab off the GUI thread; the newest request wins and superseded runs stop at
// their next progress report (NewestRun).

#include <QObject>
#include <QString>

#include "analysis/labs/estimator_lab.h"
#include "ui/labs/newest_run.h"

namespace saccade::ui {

/// What one background run gives back: a result or an error message.
using EstimatorLabRun = LabRun<EstimatorLabResult>;

/// LibTorch state stays on the pool thread and only the value-type result crosses back; a
/// request made while one runs cancels the running one through its progress callback.
/// finished() and failed() only ever report the newest request.
class EstimatorLabRunner : public QObject {
    Q_OBJECT

public:
    explicit EstimatorLabRunner(QObject* parent = nullptr);

    void request(const EstimatorLabInput& input) { m_run.request(input); }
    /// Supersedes every request without making a new one.
    void cancel() { m_run.cancel(); }
    /// True while the newest request has not been reported yet.
    bool isBusy() const { return m_run.isBusy(); }

Q_SIGNALS:
    void finished(const saccade::EstimatorLabResult& result);
    void failed(const QString& message);

private:
    NewestRun<EstimatorLabInput, EstimatorLabResult> m_run;
};

}  // namespace saccade::ui
