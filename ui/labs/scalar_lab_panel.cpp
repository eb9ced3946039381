#include "ui/labs/scalar_lab_panel.h"

#include "ui/labs/lab_labels.h"

#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>
#include <exception>

#include "ui/charts/scalar_lab_chart.h"
#include "ui/number_format.h"
#include "ui/labs/scalar_lab_form.h"
#include "ui/labs/scalar_lab_result_view.h"
#include "ui/labs/scalar_lab_runner.h"

namespace saccade::ui {

ScalarLabPanel::ScalarLabPanel(QWidget* parent) : QWidget(parent) {
    auto* explanation = makeLabExplanation(
        this, tr("Soft attention averages the values first; hard attention selects one. "
                      "With a nonlinear f, E[f(hard)] \u2260 f(soft)."));

    m_form = new ScalarLabForm(this);

    m_error = makeLabErrorLabel(this);

    m_results = new ScalarLabResultView(this);
    m_chart = new ScalarLabChart(this);
    m_runner = new ScalarLabRunner(this);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_form);
    leftLayout->addWidget(m_error);
    leftLayout->addWidget(m_results);
    leftLayout->addStretch(1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(m_chart);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({400, 700});

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addWidget(splitter, 1);

    connect(m_form, &ScalarLabForm::changed, this, &ScalarLabPanel::recompute);
    connect(m_runner, &ScalarLabRunner::finished, this,
            [this](const ScalarLabResult& result) { showResult(result, false); });
    connect(m_runner, &ScalarLabRunner::failed, this, &ScalarLabPanel::showError);

    recompute();
}

QString ScalarLabPanel::errorText() const {
    return m_error->isHidden() ? QString() : m_error->text();
}

bool ScalarLabPanel::isBusy() const { return m_runner->isBusy(); }

void ScalarLabPanel::saveSettings(QSettings& settings) const { m_form->saveSettings(settings); }

void ScalarLabPanel::restoreSettings(const QSettings& settings) {
    m_form->restoreSettings(settings);  // emits changed(), which recomputes
}

void ScalarLabPanel::recompute() {
    const Result<ScalarLabInput> input = m_form->input();
    if (!input) {
        m_runner->cancel();
        showError(QString::fromStdString(input.error()));
        return;
    }
    const bool background = input->samples > kSyncSampleLimit;
    ScalarLabInput now = *input;
    if (background) now.samples = 0;  // exact part now, Monte-Carlo below
    try {
        const Result<ScalarLabResult> result = runScalarLab(now);
        if (!result) {
            m_runner->cancel();
            showError(QString::fromStdString(result.error()));
            return;
        }
        if (background)
            m_runner->request(*input);
        else
            m_runner->cancel();
        showResult(*result, background);
    } catch (const std::exception& e) {
        m_runner->cancel();
        showError(tr("internal error: %1").arg(QString::fromUtf8(e.what())));
    }
}

void ScalarLabPanel::showResult(const ScalarLabResult& result, bool monteCarloPending) {
    m_error->clear();
    m_error->hide();
    m_results->setResult(result, monteCarloPending);
    m_chart->setResult(result);
    QString message = tr("E[f(hard)] = %1, f(soft) = %2, gap %3")
                          .arg(formatNumber(result.expectedFHard), formatNumber(result.fSoft),
                               formatNumber(result.expectedFHard - result.fSoft));
    if (monteCarloPending) message += tr("; Monte-Carlo running\u2026");
    Q_EMIT statusMessage(message);
}

void ScalarLabPanel::showError(const QString& message) {
    m_error->setText(message);
    m_error->show();
    m_results->clear();
    m_chart->clear(tr("No result: fix the inputs"));
    Q_EMIT statusMessage(tr("Scalar lab: %1").arg(message));
}

}  // namespace saccade::ui
