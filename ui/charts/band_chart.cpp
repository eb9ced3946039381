#include "ui/charts/band_chart.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QValueAxis>

#include "ui/charts/axis_ticks.h"
#include "ui/charts/chart_room.h"
#include <algorithm>
#include <cmath>

namespace saccade::ui {

BandChart::BandChart(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("bandChart"));
    auto* chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->setBackgroundRoundness(0);
    m_upper = new QLineSeries(this);
    m_lower = new QLineSeries(this);
    m_band = new QAreaSeries(m_upper, m_lower);
    m_band->setColor(QColor(70, 130, 200, 70));
    m_band->setBorderColor(QColor(70, 130, 200, 0));
    m_mean = new QLineSeries;
    m_mean->setColor(QColor(30, 80, 160));
    m_mean->setPointsVisible(true);
    chart->addSeries(m_band);
    chart->addSeries(m_mean);
    m_x = new QValueAxis;
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_y = new QValueAxis;
    m_y->setLabelFormat(QStringLiteral("%.1f"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(m_band), static_cast<QAbstractSeries*>(m_mean)}) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(160);
    keepTitlesWhereRoomy(this, 8);
}

void BandChart::setTitles(const QString& title, const QString& xTitle, const QString& yTitle) {
    chart()->setTitle(title);
    m_x->setTitleText(xTitle);
    m_y->setTitleText(yTitle);
}

void BandChart::setSeries(const QVector<double>& mean, const QVector<double>& sd) {
    QVector<double> x, low, high;
    for (int i = 0; i < mean.size(); ++i) {
        if (!std::isfinite(mean[i])) continue;  // no value at this step (a RAM's first glimpse)
        const double s = i < sd.size() ? sd[i] : 0;
        x << i + 1;
        low << std::max(0.0, mean[i] - s);
        high << mean[i] + s;
    }
    setBand(x, mean, low, high);
    setRoundTicks(m_x, 1, std::max<int>(2, int(mean.size())), std::clamp<int>(int(mean.size()), 2, 11), /*integers=*/true);
}

void BandChart::setBand(const QVector<double>& x, const QVector<double>& y, const QVector<double>& low,
                        const QVector<double>& high, double fitWithin) {
    QList<QPointF> m, hi, lo;
    double top = 0, bottom = fitWithin, left = x.isEmpty() ? 0 : x.front(), right = x.isEmpty() ? 1 : x.front();
    for (int i = 0; i < y.size() && i < x.size() && i < low.size() && i < high.size(); ++i) {
        m << QPointF(x[i], y[i]);
        hi << QPointF(x[i], high[i]);
        lo << QPointF(x[i], low[i]);
        top = std::max(top, high[i]);
        bottom = std::min(bottom, low[i]);
        left = std::min(left, x[i]);
        right = std::max(right, x[i]);
    }
    m_mean->replace(m);
    m_upper->replace(hi);
    m_lower->replace(lo);
    if (m.isEmpty()) {  // empty axes: round ticks, no repeated labels
        setRoundTicks(m_x, 0, 1, 3);
        setRoundTicks(m_y, 0, 1, 3);
        return;
    }
    // Ticks on round values: K = 1, 2, 5, 10, 20 reads on 0, 5, 10, 15, 20.
    setRoundTicks(m_x, std::min(0.0, left), right > left ? right : left + 1);
    if (fitWithin > 0) {
        const double margin = std::max(0.02 * fitWithin, 0.15 * (top - bottom));
        setRoundTicks(m_y, std::max(0.0, bottom - margin), std::min(fitWithin, top + margin), 3);
    } else {
        setRoundTicks(m_y, 0, top > 0 ? top * 1.15 : 1, 3);
    }
}

void BandChart::clear() { setBand({}, {}, {}, {}); }

QVector<QPointF> BandChart::meanPoints() const { return m_mean->points(); }
QVector<QPointF> BandChart::upperPoints() const { return m_upper->points(); }
QVector<QPointF> BandChart::lowerPoints() const { return m_lower->points(); }

QString BandChart::csv(const QString& xName, const QString& yName, const QString& lowName,
                       const QString& highName) const {
    QString out = QStringLiteral("%1,%2,%3,%4\n").arg(xName, yName, lowName, highName);
    const auto m = meanPoints(), lo = lowerPoints(), hi = upperPoints();
    for (int i = 0; i < m.size(); ++i)
        out += QStringLiteral("%1,%2,%3,%4\n").arg(m[i].x()).arg(m[i].y(), 0, 'g', 6).arg(lo[i].y(), 0, 'g', 6).arg(hi[i].y(), 0, 'g', 6);
    return out;
}

}  // namespace saccade::ui
