#include "entropy_band_chart.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

namespace saccade::ui {

EntropyBandChart::EntropyBandChart(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("entropyBandChart"));
    auto* chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->setBackgroundRoundness(0);
    chart->setTitle(tr("Entropy per step over the runs (nats): mean, ±1 sd"));
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
    m_x->setTitleText(tr("step"));
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
}

void EntropyBandChart::setSeries(const QVector<double>& mean, const QVector<double>& sd) {
    QList<QPointF> m, hi, lo;
    double top = 0;
    for (int i = 0; i < mean.size(); ++i) {
        const double s = i < sd.size() ? sd[i] : 0;
        m << QPointF(i + 1, mean[i]);
        hi << QPointF(i + 1, mean[i] + s);
        lo << QPointF(i + 1, std::max(0.0, mean[i] - s));
        top = std::max(top, mean[i] + s);
    }
    m_mean->replace(m);
    m_upper->replace(hi);
    m_lower->replace(lo);
    m_x->setRange(1, std::max<int>(2, int(mean.size())));
    m_x->setTickCount(std::clamp<int>(int(mean.size()), 2, 11));
    m_y->setRange(0, top > 0 ? top * 1.15 : 1);
}

void EntropyBandChart::clear() { setSeries({}, {}); }

QVector<QPointF> EntropyBandChart::meanPoints() const { return m_mean->points(); }
QVector<QPointF> EntropyBandChart::upperPoints() const { return m_upper->points(); }

}  // namespace saccade::ui
