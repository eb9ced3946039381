#pragma once
// A line with a shaded band around it: per-step entropy over a set of runs (mean +- one sd) in
// the comparison panel, accuracy against K with its 95% interval in the dataset comparison.

#include <QChartView>
#include <QString>
#include <QVector>

class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace saccade::ui {

class BandChart : public QChartView {
    Q_OBJECT

public:
    explicit BandChart(QWidget* parent = nullptr);

    void setTitles(const QString& title, const QString& xTitle, const QString& yTitle);
    /// Per-step values (x = 1, 2, ...): the mean and a band of +- sd, floored at 0.
    void setSeries(const QVector<double>& mean, const QVector<double>& sd);
    /// Points (x[i], y[i]) with the band [low[i], high[i]]. The y axis starts at 0; with `fitWithin`
    /// > 0 it spans the band instead (plus a margin), kept within [0, fitWithin].
    void setBand(const QVector<double>& x, const QVector<double>& y, const QVector<double>& low,
                 const QVector<double>& high, double fitWithin = 0);
    void clear();

    /// The plotted line and band edges (for tests and CSV).
    QVector<QPointF> meanPoints() const;
    QVector<QPointF> upperPoints() const;
    QVector<QPointF> lowerPoints() const;
    /// The line and band as CSV with the given column names: x, y, low, high.
    QString csv(const QString& xName, const QString& yName, const QString& lowName, const QString& highName) const;

private:
    QLineSeries* m_mean = nullptr;
    QLineSeries* m_upper = nullptr;
    QLineSeries* m_lower = nullptr;
    QAreaSeries* m_band = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
};

}  // namespace saccade::ui
