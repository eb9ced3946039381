#pragma once
// Named line series over a shared x axis: a failure profile along one axis of a sweep, deletion
// curves, a reliability diagram. A Qt Charts view with a legend and a CSV of what it shows.

#include <QChartView>
#include <QPointF>
#include <QString>
#include <QVector>

class QValueAxis;

namespace saccade::ui {

class SeriesChart : public QChartView {
    Q_OBJECT

public:
    struct Series {
        QString name;
        QVector<QPointF> points;
        bool dashed = false;
    };

    explicit SeriesChart(QWidget* parent = nullptr);

    void setTitles(const QString& title, const QString& xTitle, const QString& yTitle);
    /// Replaces every series; the y axis spans [yMin, yMax] when yMax > yMin, else the data.
    void setSeries(const QVector<Series>& series, double yMin = 0, double yMax = 0);
    void clear() { setSeries({}); }
    /// One row per x value: x, then each series' y (empty where a series has no point there).
    QString csv(const QString& xName) const;
    const QVector<Series>& series() const { return m_series; }

private:
    QVector<Series> m_series;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
};

}  // namespace saccade::ui
