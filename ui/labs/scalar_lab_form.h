#pragma once
// The inputs of the scalar lab: values, probabilities, f, u, seed and Monte-Carlo samples.

#include <QWidget>

#include "analysis/labs/scalar_lab.h"
#include "common/result.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSettings;
class QSpinBox;

namespace saccade::ui {

/// Editable scalar lab inputs. Emits changed() on every edit; input() parses them through core.
class ScalarLabForm : public QWidget {
    Q_OBJECT

public:
    static constexpr int kMaxSamples = 1'000'000;
    static constexpr int kDefaultSamples = 10'000;
    static constexpr double kDefaultU = 0.65;

    explicit ScalarLabForm(QWidget* parent = nullptr);

    /// The parsed input, or an error naming the field and the problem.
    Result<ScalarLabInput> input() const;

    /// Sets the worked example: 2, 6, 10 / 0.5, 0.3, 0.2 / square / u = 0.65.
    void resetToWorkedExample();

    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings);

    // Direct access for tests and the main window.
    QLineEdit* valuesEdit() const { return m_values; }
    QLineEdit* probsEdit() const { return m_probs; }
    QComboBox* functionCombo() const { return m_function; }
    QLineEdit* coefficientsEdit() const { return m_coefficients; }
    QDoubleSpinBox* uSpin() const { return m_u; }
    QCheckBox* drawFromSeedCheck() const { return m_drawFromSeed; }
    QSpinBox* seedSpin() const { return m_seed; }
    QSpinBox* samplesSpin() const { return m_samples; }

Q_SIGNALS:
    void changed();

private:
    void buildFields();
    void buildLayout();
    void connectSignals();
    void updateEnabled();
    /// Sets all fields without emitting changed() per field, then emits it once.
    void setFields(const QString& values, const QString& probs, const QString& function,
                   const QString& coefficients, double u, bool drawFromSeed, int seed, int samples);

    QLineEdit* m_values = nullptr;
    QLineEdit* m_probs = nullptr;
    QComboBox* m_function = nullptr;
    QLineEdit* m_coefficients = nullptr;
    QDoubleSpinBox* m_u = nullptr;
    QCheckBox* m_drawFromSeed = nullptr;
    QSpinBox* m_seed = nullptr;
    QSpinBox* m_samples = nullptr;
    bool m_settingFields = false;
};

}  // namespace saccade::ui
