#include "ui/attention/step_scrubber.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolButton>

namespace saccade::ui {

namespace {

struct Speed {
    const char* name;
    int intervalMs;
};
constexpr Speed kSpeeds[] = {{"0.5 steps/s", 2000}, {"1 step/s", 1000}, {"2 steps/s", 500},
                             {"4 steps/s", 250}};

}  // namespace

StepScrubber::StepScrubber(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("stepScrubber"));
    m_prev = new QToolButton(this);
    m_prev->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
    m_prev->setToolTip(tr("Previous step (Left)"));
    m_play = new QToolButton(this);
    m_play->setObjectName(QStringLiteral("playButton"));
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_play->setToolTip(tr("Play / pause (Space)"));
    m_next = new QToolButton(this);
    m_next->setIcon(style()->standardIcon(QStyle::SP_MediaSkipForward));
    m_next->setToolTip(tr("Next step (Right)"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("stepSlider"));
    m_slider->setPageStep(1);
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setFocusPolicy(Qt::NoFocus);  // arrow keys belong to the page
    m_label = new QLabel(this);
    m_label->setMinimumWidth(90);
    m_speed = new QComboBox(this);
    for (const auto& s : kSpeeds) m_speed->addItem(tr(s.name), s.intervalMs);
    m_speed->setCurrentIndex(1);
    m_speed->setToolTip(tr("Playback speed"));
    m_timer = new QTimer(this);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_prev);
    layout->addWidget(m_play);
    layout->addWidget(m_next);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_label);
    layout->addWidget(m_speed);

    connect(m_prev, &QToolButton::clicked, this, [this] { step(-1); });
    connect(m_next, &QToolButton::clicked, this, [this] { step(+1); });
    connect(m_play, &QToolButton::clicked, this, &StepScrubber::togglePlay);
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        updateLabel();
        Q_EMIT stepChanged(value);
    });
    connect(m_speed, &QComboBox::currentIndexChanged, this,
            [this] { m_timer->setInterval(m_speed->currentData().toInt()); });
    m_timer->setInterval(m_speed->currentData().toInt());
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_count <= 1) return;
        setCurrentStep((currentStep() + 1) % m_count);  // loops, for demos
    });
    setStepCount(0);
}

void StepScrubber::setStepCount(int count) {
    m_count = std::max(0, count);
    const QSignalBlocker block(m_slider);
    const int keep = std::min(m_slider->value(), std::max(0, m_count - 1));
    m_slider->setRange(0, std::max(0, m_count - 1));
    m_slider->setValue(keep);
    for (QWidget* w : {static_cast<QWidget*>(m_prev), static_cast<QWidget*>(m_play),
                       static_cast<QWidget*>(m_next), static_cast<QWidget*>(m_slider)})
        w->setEnabled(m_count > 1);
    if (m_count <= 1 && isPlaying()) togglePlay();
    updateLabel();
}

int StepScrubber::currentStep() const { return m_slider->value(); }

void StepScrubber::setCurrentStep(int step) { m_slider->setValue(step); }

void StepScrubber::step(int delta) { m_slider->setValue(m_slider->value() + delta); }

void StepScrubber::togglePlay() {
    if (m_timer->isActive()) {
        m_timer->stop();
        m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    } else if (m_count > 1) {
        m_timer->start();
        m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    }
}

bool StepScrubber::isPlaying() const { return m_timer->isActive(); }

void StepScrubber::updateLabel() {
    m_label->setText(m_count > 0 ? tr("Step %1 of %2").arg(currentStep() + 1).arg(m_count)
                                 : tr("No steps"));
}

}  // namespace saccade::ui
