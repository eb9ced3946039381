#include "ui/labs/estimator_lab_panel.h"

#include "ui/labs/lab_labels.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QShowEvent>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/labs/estimator_lab_form.h"
#include "ui/labs/estimator_lab_histograms.h"
#include "ui/labs/estimator_lab_runner.h"
#include "ui/labs/estimator_lab_table.h"
#include "ui/labs/estimator_lab_trajectories.h"
#include "ui/number_format.h"

namespace saccade::ui {

namespace {

QLabel* sectionTitle(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    label->setWordWrap(true);  // the page must not widen the window
    return label;
}

QString numberList(const std::vector<double>& values, int precision) {
    QStringList parts;
    for (double v : values) parts << formatNumber(v, precision);
    return parts.join(QStringLiteral(", "));
}

}  // namespace

EstimatorLabPanel::EstimatorLabPanel(QWidget* parent) : QWidget(parent) {
    auto* explanation = makeLabExplanation(
        this, tr("One-sample estimates of dE[r]/d logit. REINFORCE is unbiased with any "
                      "baseline that ignores the draw, which changes only its "
                      "variance; straight-through Gumbel-softmax trades variance "
                      "for bias."));

    m_form = new EstimatorLabForm(this);
    m_error = makeLabErrorLabel(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_form);
    leftLayout->addWidget(m_error);
    leftLayout->addWidget(m_summary);
    leftLayout->addStretch(1);

    m_logit = new QComboBox(this);
    m_logit->setObjectName(QStringLiteral("logitCombo"));
    m_logit->setToolTip(tr("The logit whose gradient estimates the histograms and the table show"));
    m_logit->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_histograms = new EstimatorLabHistograms(this);
    auto* histogramBox = new QWidget(this);
    auto* histogramLayout = new QVBoxLayout(histogramBox);
    histogramLayout->setContentsMargins(0, 0, 0, 0);
    auto* header = new QHBoxLayout;
    auto* histogramTitle = sectionTitle(tr("One-sample estimates of dE[r]/d logit"), this);
    histogramTitle->setWordWrap(false);  // short: it sits beside the logit selector
    header->addWidget(histogramTitle);
    header->addWidget(m_logit);
    header->addStretch(1);
    histogramLayout->addLayout(header);
    histogramLayout->addWidget(m_histograms, 1);

    m_table = new EstimatorLabTable(this);

    m_trajectories = new EstimatorLabTrajectories(this);
    auto* trainingBox = new QWidget(this);
    auto* trainingLayout = new QVBoxLayout(trainingBox);
    trainingLayout->setContentsMargins(0, 0, 0, 0);
    m_trainingTitle = sectionTitle(tr("Training"), this);
    trainingLayout->addWidget(m_trainingTitle);
    trainingLayout->addWidget(m_trajectories, 1);

    // Histograms and training share the height the table leaves.
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(histogramBox, 1);
    rightLayout->addWidget(m_table);
    rightLayout->addWidget(trainingBox, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({290, 1000});

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addWidget(splitter, 1);

    m_runner = new EstimatorLabRunner(this);
    m_editTimer = new QTimer(this);
    m_editTimer->setSingleShot(true);
    m_editTimer->setInterval(kEditDelayMs);
    connect(m_editTimer, &QTimer::timeout, this, &EstimatorLabPanel::run);
    connect(m_form, &EstimatorLabForm::changed, m_editTimer, qOverload<>(&QTimer::start));
    connect(m_runner, &EstimatorLabRunner::finished, this, &EstimatorLabPanel::showResult);
    connect(m_runner, &EstimatorLabRunner::failed, this, &EstimatorLabPanel::showError);
    connect(m_logit, &QComboBox::currentIndexChanged, this, &EstimatorLabPanel::showLogit);
}

void EstimatorLabPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!m_started) run();  // the defaults, without a click
}

QString EstimatorLabPanel::errorText() const {
    return m_error->isHidden() ? QString() : m_error->text();
}

bool EstimatorLabPanel::isBusy() const { return m_editTimer->isActive() || m_runner->isBusy(); }

void EstimatorLabPanel::run() {
    m_started = true;
    m_editTimer->stop();
    const Result<EstimatorLabInput> input = m_form->input();
    if (!input) {
        m_runner->cancel();
        showError(QString::fromStdString(input.error()));
        return;
    }
    m_runner->request(*input);
    Q_EMIT statusMessage(tr("Estimator lab: running\u2026"));
}

void EstimatorLabPanel::showResult(const EstimatorLabResult& result) {
    m_error->clear();
    m_error->hide();
    m_result = result;
    const int previous = m_logit->currentIndex();
    {
        const QSignalBlocker block(m_logit);
        m_logit->clear();
        for (size_t j = 0; j < result.probs.size(); ++j)
            m_logit->addItem(
                tr("logit %1  (p %2, r %3)")
                    .arg(j)
                    .arg(formatNumber(result.probs[j], 3), formatNumber(result.rewards[j], 4)));
        // By default the logit of the largest reward: the one training pushes up.
        int chosen = 0;
        for (size_t j = 1; j < result.rewards.size(); ++j)
            if (result.rewards[j] > result.rewards[static_cast<size_t>(chosen)])
                chosen = static_cast<int>(j);
        m_logit->setCurrentIndex(previous >= 0 && previous < m_logit->count() ? previous : chosen);
    }
    m_summary->setText(tr("<b>Exact</b>: E[r] = %1; dE[r]/d logit = p<sub>j</sub>(r<sub>j</sub> "
                          "\u2212 E[r]) = (%2).<br>"
                          "Optimal constant baseline b* = %3 (moving average: decay %4).<br>"
                          "N = %5 one-sample estimates per estimator, seed %6.")
                           .arg(formatNumber(result.expectedReward), numberList(result.exact, 4),
                                formatNumber(result.optimalBaseline, 4),
                                formatNumber(result.baselineDecay))
                           .arg(formatCount(result.samples))
                           .arg(result.seed));
    m_trajectories->setResult(result);
    m_trainingTitle->setText(
        result.training.empty()
            ? tr("Training: off (0 steps)")
            : tr("Training: gradient ascent on E[r], %1 steps, learning rate %2, %3 samples per "
                 "step, same start and seed")
                  .arg(result.trainSteps)
                  .arg(formatNumber(result.learningRate), formatCount(result.trainSamples)));
    showLogit();
    const auto& plain = result.estimators.front();
    const auto& optimal = result.estimators[2];
    Q_EMIT statusMessage(
        tr("Estimator lab: variance of REINFORCE %1, with the optimal baseline %2 (%3\u00d7 less)")
            .arg(formatNumber(plain.totalVariance, 4), formatNumber(optimal.totalVariance, 4),
                 formatNumber(optimal.varianceRatio, 3)));
}

void EstimatorLabPanel::showLogit() {
    if (!m_result || m_logit->currentIndex() < 0) return;
    m_histograms->setResult(*m_result, m_logit->currentIndex());
    m_table->setResult(*m_result, m_logit->currentIndex());
}

void EstimatorLabPanel::showError(const QString& message) {
    m_error->setText(message);
    m_error->show();
    Q_EMIT statusMessage(m_result
                             ? tr("Estimator lab: %1 (showing the previous result)").arg(message)
                             : tr("Estimator lab: %1").arg(message));
}

}  // namespace saccade::ui
