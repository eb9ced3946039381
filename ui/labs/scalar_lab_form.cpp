#include "ui/labs/scalar_lab_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <limits>

#include "analysis/labs/scalar_function.h"
#include "common/parse.h"

namespace saccade::ui {

namespace {

const QString kPolyItem = QStringLiteral("poly:");
const QString kExampleValues = QStringLiteral("2, 6, 10");
const QString kExampleProbs = QStringLiteral("0.5, 0.3, 0.2");
const QString kExampleFunction = QStringLiteral("square");
const QString kExampleCoefficients = QStringLiteral("0, 0, 1");
constexpr int kExampleSeed = 1;

}  // namespace

ScalarLabForm::ScalarLabForm(QWidget* parent) : QWidget(parent) {
    buildFields();
    buildLayout();
    connectSignals();
    resetToWorkedExample();
}

// The values, probabilities, function, uniform draw, seed and sample count.
void ScalarLabForm::buildFields() {
    m_values = new QLineEdit(this);
    m_values->setObjectName(QStringLiteral("valuesEdit"));
    m_values->setToolTip(tr("The candidate values v_i, separated by commas"));

    m_probs = new QLineEdit(this);
    m_probs->setObjectName(QStringLiteral("probsEdit"));
    m_probs->setToolTip(tr("The selection probabilities p_i: one per value, >= 0, summing to 1"));

    m_function = new QComboBox(this);
    m_function->setObjectName(QStringLiteral("functionCombo"));
    for (const std::string& name : ScalarFunction::names())
        m_function->addItem(QString::fromStdString(name));
    m_function->addItem(kPolyItem);
    m_function->setToolTip(tr("The downstream computation f applied to the attended value"));

    m_coefficients = new QLineEdit(this);
    m_coefficients->setObjectName(QStringLiteral("coefficientsEdit"));
    m_coefficients->setPlaceholderText(tr("c0, c1, c2, ..."));
    m_coefficients->setToolTip(
        tr("Polynomial coefficients, lowest degree first: "
           "\"1, 0, 2\" is 1 + 2x\u00b2"));

    m_u = new QDoubleSpinBox(this);
    m_u->setObjectName(QStringLiteral("uSpin"));
    m_u->setRange(0.0, 0.9999);
    m_u->setDecimals(4);
    m_u->setSingleStep(0.05);
    m_u->setToolTip(tr("The uniform number in [0, 1) that makes the hard draw"));

    m_drawFromSeed = new QCheckBox(tr("draw u from seed"), this);
    m_drawFromSeed->setObjectName(QStringLiteral("drawFromSeedCheck"));

    m_seed = new QSpinBox(this);
    m_seed->setObjectName(QStringLiteral("seedSpin"));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setToolTip(tr("Seeds the Monte-Carlo draws, and u when \"draw u from seed\" is on"));

    m_samples = new QSpinBox(this);
    m_samples->setObjectName(QStringLiteral("samplesSpin"));
    m_samples->setRange(0, kMaxSamples);
    m_samples->setSingleStep(1000);
    m_samples->setGroupSeparatorShown(true);
    m_samples->setToolTip(tr("Monte-Carlo draws of f(hard); 0 for none"));

}

void ScalarLabForm::buildLayout() {
    auto* functionRow = new QHBoxLayout;
    functionRow->addWidget(m_function, 1);
    functionRow->addWidget(m_coefficients, 1);
    auto* uRow = new QHBoxLayout;
    uRow->addWidget(m_u, 1);
    uRow->addWidget(m_drawFromSeed);

    auto* reset = new QPushButton(tr("Reset to worked example"), this);
    reset->setObjectName(QStringLiteral("resetButton"));
    connect(reset, &QPushButton::clicked, this, &ScalarLabForm::resetToWorkedExample);

    auto* form = new QFormLayout;
    form->addRow(tr("Values v"), m_values);
    form->addRow(tr("Probabilities p"), m_probs);
    form->addRow(tr("Function f"), functionRow);
    form->addRow(tr("Uniform u"), uRow);
    form->addRow(tr("Seed"), m_seed);
    form->addRow(tr("Monte-Carlo samples"), m_samples);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(reset, 0, Qt::AlignLeft);

}

// Every field's edit says the input changed.
void ScalarLabForm::connectSignals() {
    auto emitChanged = [this] {
        if (!m_settingFields) Q_EMIT changed();
    };
    connect(m_values, &QLineEdit::textChanged, this, emitChanged);
    connect(m_probs, &QLineEdit::textChanged, this, emitChanged);
    connect(m_coefficients, &QLineEdit::textChanged, this, emitChanged);
    connect(m_function, &QComboBox::currentIndexChanged, this, [this, emitChanged] {
        updateEnabled();
        emitChanged();
    });
    connect(m_u, &QDoubleSpinBox::valueChanged, this, emitChanged);
    connect(m_drawFromSeed, &QCheckBox::toggled, this, [this, emitChanged] {
        updateEnabled();
        emitChanged();
    });
    connect(m_seed, &QSpinBox::valueChanged, this, emitChanged);
    connect(m_samples, &QSpinBox::valueChanged, this, emitChanged);

}

Result<ScalarLabInput> ScalarLabForm::input() const {
    ScalarLabInput in;
    auto values = parseNumberList(m_values->text().toStdString(), "values");
    if (!values) return Error{values.error()};
    auto probs = parseNumberList(m_probs->text().toStdString(), "probabilities");
    if (!probs) return Error{probs.error()};
    in.values = std::move(values).value();
    in.probs = std::move(probs).value();

    const QString function = m_function->currentText();
    if (function == kPolyItem) {
        // Validate the coefficients here so the message names the field the user typed in.
        auto coefficients =
            parseNumberList(m_coefficients->text().toStdString(), "polynomial coefficients");
        if (!coefficients) return Error{coefficients.error()};
        in.function = "poly:" + m_coefficients->text().simplified().remove(' ').toStdString();
    } else {
        in.function = function.toStdString();
    }
    if (!m_drawFromSeed->isChecked()) in.u = m_u->value();
    in.seed = static_cast<std::uint64_t>(m_seed->value());
    in.samples = m_samples->value();
    return in;
}

void ScalarLabForm::resetToWorkedExample() {
    setFields(kExampleValues, kExampleProbs, kExampleFunction, kExampleCoefficients, kDefaultU,
              false, kExampleSeed, kDefaultSamples);
}

void ScalarLabForm::saveSettings(QSettings& settings) const {
    settings.beginGroup(QStringLiteral("scalarLab"));
    settings.setValue(QStringLiteral("values"), m_values->text());
    settings.setValue(QStringLiteral("probs"), m_probs->text());
    settings.setValue(QStringLiteral("function"), m_function->currentText());
    settings.setValue(QStringLiteral("coefficients"), m_coefficients->text());
    settings.setValue(QStringLiteral("u"), m_u->value());
    settings.setValue(QStringLiteral("drawFromSeed"), m_drawFromSeed->isChecked());
    settings.setValue(QStringLiteral("seed"), m_seed->value());
    settings.setValue(QStringLiteral("samples"), m_samples->value());
    settings.endGroup();
}

void ScalarLabForm::restoreSettings(const QSettings& settings) {
    auto value = [&settings](const char* key, const QVariant& fallback) {
        const QVariant stored =
            settings.value(QStringLiteral("scalarLab/") + QLatin1String(key), fallback);
        // A hand-edited INI line "values=2, 6, 10" reads back as a list; rejoin it.
        if (stored.typeId() == QMetaType::QStringList)
            return QVariant(stored.toStringList().join(QStringLiteral(", ")));
        return stored;
    };
    setFields(value("values", kExampleValues).toString(), value("probs", kExampleProbs).toString(),
              value("function", kExampleFunction).toString(),
              value("coefficients", kExampleCoefficients).toString(),
              value("u", kDefaultU).toDouble(), value("drawFromSeed", false).toBool(),
              value("seed", kExampleSeed).toInt(), value("samples", kDefaultSamples).toInt());
}

void ScalarLabForm::updateEnabled() {
    m_coefficients->setEnabled(m_function->currentText() == kPolyItem);
    m_u->setEnabled(!m_drawFromSeed->isChecked());
}

void ScalarLabForm::setFields(const QString& values, const QString& probs, const QString& function,
                              const QString& coefficients, double u, bool drawFromSeed, int seed,
                              int samples) {
    m_settingFields = true;
    m_values->setText(values);
    m_probs->setText(probs);
    const int index = m_function->findText(function);
    m_function->setCurrentIndex(index >= 0 ? index : m_function->findText(kExampleFunction));
    m_coefficients->setText(coefficients);
    m_u->setValue(u);
    m_drawFromSeed->setChecked(drawFromSeed);
    m_seed->setValue(seed);
    m_samples->setValue(samples);
    m_settingFields = false;
    updateEnabled();
    Q_EMIT changed();
}

}  // namespace saccade::ui
