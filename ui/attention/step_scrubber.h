#pragma once
// StepScrubber: the step slider with previous / play-pause / next buttons and a speed choice.
// Playing loops over the steps; the owner maps arrow keys and Space to step() and togglePlay().

#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace saccade::ui {

class StepScrubber : public QWidget {
    Q_OBJECT

public:
    explicit StepScrubber(QWidget* parent = nullptr);

    /// Number of steps (0 disables the scrubber); keeps the current step when it still exists.
    void setStepCount(int count);
    int stepCount() const { return m_count; }
    int currentStep() const;
    void setCurrentStep(int step);
    /// Moves by `delta` steps, clamped.
    void step(int delta);
    void togglePlay();
    bool isPlaying() const;

Q_SIGNALS:
    void stepChanged(int step);

private:
    void updateLabel();

    QToolButton* m_prev = nullptr;
    QToolButton* m_play = nullptr;
    QToolButton* m_next = nullptr;
    QSlider* m_slider = nullptr;
    QLabel* m_label = nullptr;
    QComboBox* m_speed = nullptr;
    QTimer* m_timer = nullptr;
    int m_count = 0;
};

}  // namespace saccade::ui
