#include "ui/charts/series_chart.h"

#include "ui/charts/axis_ticks.h"

#include <QAreaSeries>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <map>

namespace saccade::ui {

namespace {

const QColor kColours[] = {QColor(30, 80, 160), QColor(220, 120, 20), QColor(40, 160, 80), QColor(150, 60, 160),
                           QColor(120, 120, 120)};
}  // namespace

SeriesChart::SeriesChart(QWidget* parent) : QChartView(parent) {
    auto* chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignBottom);
    QFont small = chart->legend()->font();
    if (small.pointSizeF() > 0) small.setPointSizeF(small.pointSizeF() * 0.85);
    chart->legend()->setFont(small);
    m_x = new QValueAxis;
    m_y = new QValueAxis;
    m_x->setLabelFormat(QStringLiteral("%g"));
    m_y->setLabelFormat(QStringLiteral("%.2g"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(160);
    setMinimumWidth(160);  // pages share the window: never widen it
}

void SeriesChart::setTitles(const QString& title, const QString& xTitle, const QString& yTitle) {
    chart()->setTitle(title);
    m_x->setTitleText(xTitle);
    m_y->setTitleText(yTitle);
}

void SeriesChart::setSeries(const QVector<Series>& series, double yMin, double yMax) {
    m_series = series;
    chart()->removeAllSeries();
    double left = 0, right = 1, bottom = 0, top = 1;
    bool first = true;
    bool anyInLegend = false;
    for (int i = 0; i < series.size(); ++i) {
        auto* line = new QLineSeries;
        line->setName(series[i].name);
        const QColor colour = series[i].colour.isValid() ? series[i].colour : kColours[i % 5];
        QPen pen(colour, 2);
        if (series[i].dashed) pen.setStyle(Qt::DashLine);
        line->setPen(pen);
        line->setPointsVisible(series[i].dots && series[i].points.size() <= 30);
        line->replace(QList<QPointF>(series[i].points.begin(), series[i].points.end()));
        QAbstractSeries* shown = line;
        if (series[i].filled) {
            auto* area = new QAreaSeries(line);  // down to y = 0
            line->setParent(area);               // removeAllSeries() deletes the area, the area its line
            area->setName(series[i].name);
            QColor fill = colour;
            fill.setAlpha(110);
            area->setBrush(fill);
            area->setPen(QPen(colour, 1));
            shown = area;
        }
        chart()->addSeries(shown);
        shown->attachAxis(m_x);
        shown->attachAxis(m_y);
        for (QLegendMarker* marker : chart()->legend()->markers(shown)) marker->setVisible(series[i].legend);
        anyInLegend = anyInLegend || series[i].legend;
        for (const auto& p : series[i].points) {
            left = first ? p.x() : std::min(left, p.x());
            right = first ? p.x() : std::max(right, p.x());
            bottom = first ? p.y() : std::min(bottom, p.y());
            top = first ? p.y() : std::max(top, p.y());
            first = false;
        }
    }
    if (right <= left) right = left + 1;
    setRoundTicks(m_x, left, right, m_compact ? 5 : 6);
    if (yMax > yMin) {
        setRoundTicks(m_y, yMin, yMax, m_compact ? 3 : 6);
    } else {
        if (top <= bottom) top = bottom + 1;
        setRoundTicks(m_y, bottom, top, m_compact ? 3 : 6);
    }
    chart()->legend()->setVisible(series.size() > 1 && anyInLegend);
}

void SeriesChart::setCompact(bool compact) {
    m_compact = compact;
    auto scaled = [compact](QFont font, double factor) {
        if (compact && font.pointSizeF() > 0) font.setPointSizeF(font.pointSizeF() * factor);
        return font;
    };
    const QFont base = font();
    QFont title = scaled(base, 0.9);
    title.setBold(true);
    chart()->setTitleFont(title);
    for (QValueAxis* axis : {m_x, m_y}) {
        axis->setLabelsFont(scaled(base, 0.8));
        axis->setTitleVisible(!compact);
    }
    chart()->legend()->setFont(scaled(base, 0.8));
    chart()->setMargins(compact ? QMargins(0, 0, 0, 0) : QMargins(2, 2, 2, 2));
    chart()->layout()->setContentsMargins(compact ? 0 : 4, 0, compact ? 0 : 4, 0);
    setMinimumHeight(compact ? 100 : 160);  // two rows of small multiples fit 800 pixels with the menu bar
    setMinimumWidth(compact ? 120 : 160);
}

QString SeriesChart::title() const { return chart()->title(); }

QString SeriesChart::csv(const QString& xName) const {
    std::map<double, QStringList> rows;
    for (int i = 0; i < m_series.size(); ++i)
        for (const auto& p : m_series[i].points) {
            auto& row = rows[p.x()];
            while (row.size() < m_series.size()) row << QString();
            row[i] = QString::number(p.y(), 'g', 6);
        }
    QStringList header{xName};
    for (const auto& s : m_series) header << s.name;
    QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const auto& [x, row] : rows) out += QString::number(x, 'g', 6) + QLatin1Char(',') + row.join(QLatin1Char(',')) + QLatin1Char('\n');
    return out;
}

}  // namespace saccade::ui
