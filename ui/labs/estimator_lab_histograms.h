#pragma once
// Small multiples: one histogram per estimator of the N one-sample estimates of one logit's
// gradient, all on the same bins (so the same x range), with the exact gradient and the
// estimator's mean as vertical lines.

#include <QVector>
#include <QWidget>

#include "analysis/labs/estimator_lab.h"

class QGridLayout;
class QLabel;

namespace saccade::ui {

class SeriesChart;

class EstimatorLabHistograms : public QWidget {
    Q_OBJECT

public:
    static constexpr int kColumns = 4;

    explicit EstimatorLabHistograms(QWidget* parent = nullptr);

    /// Draws logit `logit` of `result`, one chart per estimator.
    void setResult(const EstimatorLabResult& result, int logit);

    int chartCount() const { return m_charts.size(); }
    SeriesChart* chart(int index) const { return m_charts.value(index); }
    /// The samples chart `index` accounts for: the shares it draws times N plus the count it
    /// reports outside the shared range.
    qint64 shownSamples(int index) const;
    /// The x of the exact-gradient and mean lines of chart `index` (NaN when absent).
    double exactLineX(int index) const;
    double meanLineX(int index) const;

private:
    void ensureCharts(int count);

    QGridLayout* m_grid = nullptr;
    QVector<SeriesChart*> m_charts;
    QVector<qint64> m_outside;
    qint64 m_samples = 0;
    QLabel* m_key = nullptr;
};

}  // namespace saccade::ui
