#include "ui/labs/estimator_lab_form.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <limits>

#include "common/parse.h"

namespace saccade::ui {

namespace {

const QString kProbabilities = QStringLiteral("Probabilities p");
const QString kLogits = QStringLiteral("Logits");

QString joined(const std::vector<double>& values) {
    QStringList parts;
    for (double v : values) parts << QString::number(v, 'g', 6);
    return parts.join(QStringLiteral(", "));
}

}  // namespace

EstimatorLabForm::EstimatorLabForm(QWidget* parent) : QWidget(parent) {
    buildFields();
    buildLayout();
    connectSignals();
    resetToDefaults();
}

// The categorical, its rewards and the Gumbel temperatures; the sampling; the training.
void EstimatorLabForm::buildFields() {
    m_parameter = new QComboBox(this);
    m_parameter->setObjectName(QStringLiteral("parameterCombo"));
    m_parameter->addItems({kProbabilities, kLogits});
    m_parameter->setToolTip(
        tr("Give the categorical as probabilities (> 0, summing to 1) or as logits"));

    m_categorical = new QLineEdit(this);
    m_categorical->setObjectName(QStringLiteral("categoricalEdit"));
    m_categorical->setToolTip(tr("One number per category, separated by commas"));
    m_rewards = new QLineEdit(this);
    m_rewards->setObjectName(QStringLiteral("rewardsEdit"));
    m_rewards->setToolTip(tr("The reward r_i of each category"));
    m_temperatures = new QLineEdit(this);
    m_temperatures->setObjectName(QStringLiteral("temperaturesEdit"));
    m_temperatures->setToolTip(
        tr("Straight-through Gumbel-softmax temperatures, separated by commas (at most %1)")
            .arg(kEstimatorLabMaxTemperatures));


    m_samples = new QSpinBox(this);
    m_samples->setObjectName(QStringLiteral("samplesSpin"));
    m_samples->setRange(2, kMaxSamples);
    m_samples->setSingleStep(1000);
    m_samples->setGroupSeparatorShown(true);
    m_samples->setToolTip(
        tr("One-sample estimates per estimator (the histograms hold all of them)"));
    m_seed = new QSpinBox(this);
    m_seed->setObjectName(QStringLiteral("seedSpin"));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setToolTip(tr("Seeds every draw; the same seed gives the same numbers"));
    m_decay = new QDoubleSpinBox(this);
    m_decay->setObjectName(QStringLiteral("decaySpin"));
    m_decay->setRange(0, 1);
    m_decay->setDecimals(3);
    m_decay->setSingleStep(0.05);
    m_decay->setToolTip(tr("b \u2190 decay \u00b7 b + (1 \u2212 decay) \u00b7 r after each draw"));


    m_trainSteps = new QSpinBox(this);
    m_trainSteps->setObjectName(QStringLiteral("trainStepsSpin"));
    m_trainSteps->setRange(0, kMaxTrainSteps);
    m_trainSteps->setSingleStep(10);
    m_trainSteps->setToolTip(tr("Gradient-ascent steps on E[r] under each estimator (0: none)"));
    m_learningRate = new QDoubleSpinBox(this);
    m_learningRate->setObjectName(QStringLiteral("learningRateSpin"));
    m_learningRate->setRange(0.0001, 100);
    m_learningRate->setDecimals(4);
    m_learningRate->setSingleStep(0.05);
    m_learningRate->setToolTip(tr("logits \u2190 logits + learning rate \u00b7 estimate"));
    m_trainSamples = new QSpinBox(this);
    m_trainSamples->setObjectName(QStringLiteral("trainSamplesSpin"));
    m_trainSamples->setRange(1, kMaxTrainSamples);
    m_trainSamples->setToolTip(tr("One-sample estimates averaged per training step"));

}

void EstimatorLabForm::buildLayout() {
    auto* reset = new QPushButton(tr("Reset to the worked example"), this);
    reset->setObjectName(QStringLiteral("resetButton"));
    connect(reset, &QPushButton::clicked, this, &EstimatorLabForm::resetToDefaults);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(m_parameter, m_categorical);
    form->addRow(tr("Rewards r"), m_rewards);
    form->addRow(tr("Samples N"), m_samples);
    form->addRow(tr("Seed"), m_seed);
    form->addRow(tr("Baseline decay"), m_decay);
    form->addRow(tr("Gumbel \u03c4"), m_temperatures);
    form->addRow(tr("Training steps"), m_trainSteps);
    form->addRow(tr("Learning rate"), m_learningRate);
    form->addRow(tr("Samples / step"), m_trainSamples);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(reset, 0, Qt::AlignLeft);

}

// Every field's edit says the input changed.
void EstimatorLabForm::connectSignals() {
    auto emitChanged = [this] {
        if (!m_resetting) Q_EMIT changed();
    };
    for (QLineEdit* edit : {m_categorical, m_rewards, m_temperatures})
        connect(edit, &QLineEdit::textChanged, this, emitChanged);
    for (QSpinBox* spin : {m_samples, m_seed, m_trainSteps, m_trainSamples})
        connect(spin, &QSpinBox::valueChanged, this, emitChanged);
    for (QDoubleSpinBox* spin : {m_decay, m_learningRate})
        connect(spin, &QDoubleSpinBox::valueChanged, this, emitChanged);
    connect(m_parameter, &QComboBox::currentIndexChanged, this, emitChanged);

}

Result<EstimatorLabInput> EstimatorLabForm::input() const {
    EstimatorLabInput in;
    const bool logits = m_parameter->currentText() == kLogits;
    auto categorical =
        parseNumberList(m_categorical->text().toStdString(), logits ? "logits" : "probabilities");
    if (!categorical) return Error{categorical.error()};
    (logits ? in.logits : in.probs) = std::move(categorical).value();
    auto rewards = parseNumberList(m_rewards->text().toStdString(), "rewards");
    if (!rewards) return Error{rewards.error()};
    in.rewards = std::move(rewards).value();
    auto temperatures = parseNumberList(m_temperatures->text().toStdString(), "temperatures");
    if (!temperatures) return Error{temperatures.error()};
    in.temperatures = std::move(temperatures).value();
    in.samples = m_samples->value();
    in.seed = static_cast<std::uint64_t>(m_seed->value());
    in.baselineDecay = m_decay->value();
    in.trainSteps = m_trainSteps->value();
    in.learningRate = m_learningRate->value();
    in.trainSamples = m_trainSamples->value();
    return in;
}

void EstimatorLabForm::resetToDefaults() {
    const EstimatorLabInput defaults;
    m_resetting = true;
    m_parameter->setCurrentText(kProbabilities);
    m_categorical->setText(QStringLiteral("0.5, 0.3, 0.2"));
    m_rewards->setText(QStringLiteral("1, 2, 5"));
    m_temperatures->setText(joined(defaults.temperatures));
    m_samples->setValue(static_cast<int>(defaults.samples));
    m_seed->setValue(static_cast<int>(defaults.seed));
    m_decay->setValue(defaults.baselineDecay);
    m_trainSteps->setValue(static_cast<int>(defaults.trainSteps));
    m_learningRate->setValue(defaults.learningRate);
    m_trainSamples->setValue(static_cast<int>(defaults.trainSamples));
    m_resetting = false;
    Q_EMIT changed();
}

}  // namespace saccade::ui
