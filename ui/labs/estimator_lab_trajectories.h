#pragma once
// Small multiples: the probabilities of every category against the training step, one chart per
// estimator (the exact gradient first), same start, seed and y range [0, 1].

#include <QVector>
#include <QWidget>

#include "analysis/labs/estimator_lab.h"

class QGridLayout;
class QLabel;

namespace saccade::ui {

class SeriesChart;

class EstimatorLabTrajectories : public QWidget {
    Q_OBJECT

public:
    static constexpr int kColumns = 4;

    explicit EstimatorLabTrajectories(QWidget* parent = nullptr);

    /// One chart per training run of `result`; none when it did not train.
    void setResult(const EstimatorLabResult& result);

    int chartCount() const;
    SeriesChart* chart(int index) const { return m_charts.value(index); }

private:
    QGridLayout* m_grid = nullptr;
    QLabel* m_key = nullptr;
    QVector<SeriesChart*> m_charts;
};

}  // namespace saccade::ui
