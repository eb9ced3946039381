#pragma once
// Named line series over a shared x axis: a failure profile along one axis of a sweep, deletion
// curves, a reliability diagram, the estimator lab's histograms (a filled step line with marker
// lines) and its training trajectories. A Qt Charts view with a legend and a CSV of what it shows.

#include <QChartView>
#include <QColor>
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
        QColor colour = {};   ///< invalid: the next colour of the palette
        bool filled = false;  ///< shade the area between the line and y = 0
        bool dots = true;     ///< mark the points when there are at most 30
        bool legend = true;   ///< list the series in the legend
    };

    explicit SeriesChart(QWidget* parent = nullptr);

    void setTitles(const QString& title, const QString& xTitle, const QString& yTitle);
    /// Replaces every series; the y axis spans [yMin, yMax] when yMax > yMin, else the data.
    void setSeries(const QVector<Series>& series, double yMin = 0, double yMax = 0);
    void clear() { setSeries({}); }
    /// Small fonts, thin margins, few ticks and no axis titles: for small multiples. Call before
    /// setSeries(). The title may be HTML (two lines: "a<br>b").
    void setCompact(bool compact);
    /// The chart's title as shown.
    QString title() const;
    /// One row per x value: x, then each series' y (empty where a series has no point there).
    QString csv(const QString& xName) const;
    const QVector<Series>& series() const { return m_series; }

private:
    QVector<Series> m_series;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    bool m_compact = false;
};

}  // namespace saccade::ui
