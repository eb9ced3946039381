#include "ui/labs/estimator_lab_runner.h"

namespace saccade::ui {

EstimatorLabRunner::EstimatorLabRunner(QObject* parent)
    : QObject(parent),
      m_run(
          this,
          [](const EstimatorLabInput& input, const std::function<bool()>& current) {
              return runEstimatorLab(input, [&](double) { return current(); });
          },
          [this](const EstimatorLabRun& run) {
              if (run.result)
                  Q_EMIT finished(*run.result);
              else
                  Q_EMIT failed(run.error);
          }) {}

}  // namespace saccade::ui
