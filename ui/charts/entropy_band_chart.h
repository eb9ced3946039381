#pragma once
// Per-step entropy over a set of runs: the mean as a line, mean +- one standard deviation as a
// band. A Qt Charts view of the comparison panel.

#include <QChartView>
#include <QVector>

class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace saccade::ui {

class EntropyBandChart : public QChartView {
    Q_OBJECT

public:
    explicit EntropyBandChart(QWidget* parent = nullptr);

    /// One point per step (steps numbered from 1).
    void setSeries(const QVector<double>& mean, const QVector<double>& sd);
    void clear();

    /// The plotted means and band edges (for tests).
    QVector<QPointF> meanPoints() const;
    QVector<QPointF> upperPoints() const;

private:
    QLineSeries* m_mean = nullptr;
    QLineSeries* m_upper = nullptr;
    QLineSeries* m_lower = nullptr;
    QAreaSeries* m_band = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
};

}  // namespace saccade::ui
