#pragma once
// The inputs of the estimator lab: the categorical (probabilities or logits), rewards, samples,
// seed, baseline decay, Gumbel temperatures and the training settings.

#include <QWidget>

#include "analysis/labs/estimator_lab.h"
#include "common/result.h"

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace saccade::ui {

/// Editable estimator lab inputs. Emits changed() on every edit; input() parses them with the
/// same strict parsers as saccade-cli, and core checks the rest.
class EstimatorLabForm : public QWidget {
    Q_OBJECT

public:
    static constexpr int kMaxSamples = 1'000'000;
    static constexpr int kMaxTrainSteps = 2'000;
    static constexpr int kMaxTrainSamples = 1'000;

    explicit EstimatorLabForm(QWidget* parent = nullptr);

    /// The parsed input, or an error naming the field and the problem.
    Result<EstimatorLabInput> input() const;
    /// The worked example: p = 0.5, 0.3, 0.2, rewards 1, 2, 5, the CLI's defaults otherwise.
    void resetToDefaults();

    // Direct access for tests.
    QComboBox* parameterCombo() const { return m_parameter; }
    QLineEdit* categoricalEdit() const { return m_categorical; }
    QLineEdit* rewardsEdit() const { return m_rewards; }
    QLineEdit* temperaturesEdit() const { return m_temperatures; }
    QSpinBox* samplesSpin() const { return m_samples; }
    QSpinBox* seedSpin() const { return m_seed; }
    QDoubleSpinBox* decaySpin() const { return m_decay; }
    QSpinBox* trainStepsSpin() const { return m_trainSteps; }
    QDoubleSpinBox* learningRateSpin() const { return m_learningRate; }
    QSpinBox* trainSamplesSpin() const { return m_trainSamples; }

Q_SIGNALS:
    void changed();

private:
    void buildFields();
    void buildLayout();
    void connectSignals();

    QComboBox* m_parameter = nullptr;  // probabilities or logits
    QLineEdit* m_categorical = nullptr;
    QLineEdit* m_rewards = nullptr;
    QLineEdit* m_temperatures = nullptr;
    QSpinBox* m_samples = nullptr;
    QSpinBox* m_seed = nullptr;
    QDoubleSpinBox* m_decay = nullptr;
    QSpinBox* m_trainSteps = nullptr;
    QDoubleSpinBox* m_learningRate = nullptr;
    QSpinBox* m_trainSamples = nullptr;
    bool m_resetting = false;
};

}  // namespace saccade::ui
