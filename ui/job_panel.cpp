#include "ui/job_panel.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <cmath>

namespace saccade::ui {

JobPanel::JobPanel(QWidget* parent) : QWidget(parent) { m_job = new AnalysisJob(this); }

void JobPanel::buildJobControls(const QString& runText, const QString& runName) {
    m_run = new QPushButton(runText, this);
    m_run->setObjectName(runName);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    connect(m_run, &QPushButton::clicked, this, [this] { run(); });
    // Cancel stops the panel's own job and says so; a job asked for elsewhere is stopped there.
    bindJobControls(m_job, m_run, m_cancel, m_progress, m_status);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (!m_requested) return;
        setIdle();
        m_progress->setValue(0);
        Q_EMIT cancelRequested();
    });
}

bool JobPanel::isRunning() const { return m_requested || m_job->isRunning(); }
QString JobPanel::summaryText() const { return m_status->text(); }
QString JobPanel::modelName() const { return m_checkpoint.section(QLatin1Char('/'), -1); }

bool JobPanel::startJob(std::function<QString(const Progress&)> work, std::function<void()> done,
                        const QString& message) {
    return m_job->startShown(std::move(work), std::move(done), message);
}

void JobPanel::setIdle() {
    m_requested = false;
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    for (QWidget* input : m_inputs) input->setEnabled(true);
}

void JobPanel::showRequested(const QString& message) {
    m_requested = true;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    for (QWidget* input : m_inputs) input->setEnabled(false);
    m_progress->setValue(0);
    m_status->setText(message);
}

void JobPanel::showArrived() {
    setIdle();
    m_progress->setValue(m_progress->maximum());
}

void JobPanel::showIdle() {
    setIdle();
    m_progress->setValue(0);
}

void JobPanel::setProgress(double fraction) { m_progress->setValue(int(std::lround(fraction * 1000))); }

void JobPanel::showError(const QString& message) {
    setIdle();
    m_status->setText(tr("<span style='color:#c33'>%1</span>").arg(message.toHtmlEscaped()));
}

bool JobPanel::adoptModel(const QString& checkpoint, const QString& dataset) {
    const bool other = checkpoint != m_checkpoint;
    if (other) {  // the shown result is not the new model's own
        m_job->forget();  // stops a run, frees Run, and empties the progress bar
        clearResult();
    }
    m_checkpoint = checkpoint;
    m_dataset = dataset;
    return other;
}

}  // namespace saccade::ui
