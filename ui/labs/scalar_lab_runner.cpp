#include "ui/labs/scalar_lab_runner.h"

namespace saccade::ui {

// A run of at most 1e6 samples takes tens of milliseconds and checks nothing: the destructor's
// wait for it keeps shutdown tidy.
ScalarLabRunner::ScalarLabRunner(QObject* parent)
    : QObject(parent),
      m_run(
          this, [](const ScalarLabInput& input, const std::function<bool()>&) { return runScalarLab(input); },
          [this](const ScalarLabRun& run) {
              if (run.result)
                  Q_EMIT finished(*run.result);
              else
                  Q_EMIT failed(run.error);
          }) {}

}  // namespace saccade::ui
