#pragma once
// Live training curves: loss terms, reward and baseline (left axis) and accuracy (right axis:
// the training batch, and each evaluation under soft, argmax and sample) against iterations.

#include <QChartView>

#include "models/model_family.h"

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace saccade::ui {

class TrainingChart : public QChartView {
    Q_OBJECT

public:
    explicit TrainingChart(QWidget* parent = nullptr);

    /// Empties the chart for a new run and names its series as the family reads them
    /// (ModelFamily::progress: the RAM's are mean, sample and random glimpses; the captioner's are
    /// exact match under soft, argmax and sample, with BLEU-4 and attention mass beside them).
    /// `hard`: a REINFORCE run, whose reward and baseline are drawn too.
    void clear(const FamilyProgressNames& names = {}, bool hard = false);
    void add(const TrainProgress& progress);
    /// Points in the cross-entropy curve and in the evaluation series (for tests).
    int lossPointCount() const;
    int evalPointCount() const;

private:
    QValueAxis* m_x = nullptr;
    QValueAxis* m_left = nullptr;
    QValueAxis* m_right = nullptr;
    QLineSeries* m_ce = nullptr;
    QLineSeries* m_reward = nullptr;
    QLineSeries* m_baseline = nullptr;
    QLineSeries* m_entropy = nullptr;
    QLineSeries* m_trainAcc = nullptr;
    QScatterSeries* m_evalSoft = nullptr;
    QScatterSeries* m_evalArgmax = nullptr;
    QScatterSeries* m_evalSample = nullptr;
    QLineSeries* m_bleu = nullptr;
    QLineSeries* m_mass = nullptr;
    double m_leftMin = 0, m_leftMax = 1;
};

}  // namespace saccade::ui
