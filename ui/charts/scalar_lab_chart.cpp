#include "ui/charts/scalar_lab_chart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QFontMetrics>
#include <QPainter>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "ui/number_format.h"

namespace saccade::ui {

namespace {

const QColor kExactColor(0x1f, 0x77, 0xb4);
const QColor kMonteCarloColor(0xff, 0x7f, 0x0e);
const QColor kFSoftColor(0x2c, 0xa0, 0x2c);
const QColor kExpectedColor(0xd6, 0x27, 0x28);
const QColor kArgmaxColor(0x94, 0x67, 0xbd);

constexpr double kMarginFraction = 0.08;
constexpr int kMarkerAlpha = 170;
constexpr double kHeadroom = 1.25;  // room above the tallest point for its label

QPen markerPen(QColor color, Qt::PenStyle style, int alpha = 255) {
    color.setAlpha(alpha);
    QPen pen(color);
    pen.setWidthF(2.0);
    pen.setStyle(style);
    return pen;
}

}  // namespace

ScalarLabChart::ScalarLabChart(QWidget* parent) : QChartView(parent) {
    m_chart = new QChart;
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    setChart(m_chart);  // the view owns the chart
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(420, 320);

    m_axisX = new QValueAxis;
    m_axisX->setTitleText(tr("f value"));
    m_axisX->setLabelFormat(QStringLiteral("%.4g"));
    m_axisY = new QValueAxis;
    m_axisY->setTitleText(tr("probability"));
    m_axisY->setLabelFormat(QStringLiteral("%.2f"));
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);

    m_stems = new QLineSeries;
    m_stems->setPen(markerPen(kExactColor, Qt::SolidLine));

    m_exact = new QScatterSeries;
    m_exact->setName(tr("exact p"));
    m_exact->setColor(kExactColor);
    m_exact->setBorderColor(kExactColor);
    m_exact->setMarkerSize(11);

    m_monteCarlo = new QScatterSeries;
    m_monteCarlo->setName(tr("Monte-Carlo frequency"));
    m_monteCarlo->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_monteCarlo->setMarkerSize(17);
    m_monteCarlo->setBrush(Qt::NoBrush);  // hollow, so the exact dot shows through
    m_monteCarlo->setPen(markerPen(kMonteCarloColor, Qt::SolidLine));

    // Marker lines are a little transparent so the stem labels they cross stay readable.
    m_fSoft = new QLineSeries;
    m_fSoft->setPen(markerPen(kFSoftColor, Qt::DashLine, kMarkerAlpha));
    m_expectedFHard = new QLineSeries;
    m_expectedFHard->setPen(markerPen(kExpectedColor, Qt::DashDotLine, kMarkerAlpha));
    m_fArgmax = new QLineSeries;
    m_fArgmax->setPen(markerPen(kArgmaxColor, Qt::DotLine, kMarkerAlpha));

    // Qt Charts draws scatter series (and their labels) above line series whatever the order.
    for (QXYSeries* series : allSeries()) {
        m_chart->addSeries(series);
        series->attachAxis(m_axisX);
        series->attachAxis(m_axisY);
    }
    // The stems and the dots are one thing in the legend.
    for (QLegendMarker* marker : m_chart->legend()->markers(m_stems)) marker->setVisible(false);
    paintMonteCarloSwatch();

    clear();
}

void ScalarLabChart::setResult(const ScalarLabResult& result) {
    // The distribution of f(hard): outcomes with the same f value add up.
    std::map<double, std::pair<double, std::int64_t>> byF;
    for (const ScalarOutcome& outcome : result.outcomes) {
        auto& entry = byF[outcome.f];
        entry.first += outcome.prob;
        entry.second += outcome.mcCount;
    }

    QList<QPointF> stems;
    QList<QPointF> exact;
    QList<QPointF> monteCarlo;
    m_stemLabels.clear();
    double lo = std::min({result.fSoft, result.expectedFHard, result.fArgmax});
    double hi = std::max({result.fSoft, result.expectedFHard, result.fArgmax});
    double top = 0;
    for (const auto& [f, entry] : byF) {
        stems << QPointF(f, 0) << QPointF(f, entry.first) << QPointF(f, 0);
        exact << QPointF(f, entry.first);
        lo = std::min(lo, f);
        hi = std::max(hi, f);
        top = std::max(top, entry.first);
        double tallest = entry.first;
        if (result.mc && result.mc->n > 0) {
            const double frequency = static_cast<double>(entry.second) / result.mc->n;
            monteCarlo << QPointF(f, frequency);
            top = std::max(top, frequency);
            tallest = std::max(tallest, frequency);
        }
        m_stemLabels.push_back({QPointF(f, tallest),
                                tr("f=%1, p=%2").arg(formatNumber(f, 4), formatNumber(entry.first, 3))});
    }

    const double span = hi - lo;
    const double margin =
        span > 0 ? span * kMarginFraction : std::max(1.0, std::abs(hi) * kMarginFraction);
    m_axisX->setRange(lo - margin, hi + margin);
    m_axisX->applyNiceNumbers();
    m_axisY->setRange(0, std::min(1.0, top) * kHeadroom);
    m_axisY->applyNiceNumbers();
    if (m_axisY->min() < 0) m_axisY->setMin(0);

    m_stems->replace(stems);
    m_exact->replace(exact);
    m_monteCarlo->replace(monteCarlo);
    // n is in the results table; a short name keeps the one-row legend untruncated.
    m_monteCarlo->setName(result.mc ? tr("Monte-Carlo") : tr("Monte-Carlo (off)"));
    paintMonteCarloSwatch();

    const double yTop = m_axisY->max();
    setMarker(m_fSoft, result.fSoft, yTop, tr("f(soft) = %1").arg(formatNumber(result.fSoft)));
    setMarker(m_expectedFHard, result.expectedFHard, yTop,
              tr("E[f(hard)] = %1").arg(formatNumber(result.expectedFHard)));
    setMarker(m_fArgmax, result.fArgmax, yTop,
              tr("f(argmax) = %1").arg(formatNumber(result.fArgmax)));
    m_chart->setTitle(
        tr("Distribution of f(hard), f = %1").arg(QString::fromStdString(result.function)));
}

QStringList ScalarLabChart::stemLabels() const {
    QStringList texts;
    for (const StemLabel& label : m_stemLabels) texts << label.text;
    return texts;
}

void ScalarLabChart::paintMonteCarloSwatch() {
    // The squares are hollow; a hollow swatch would read as white, so the legend shows the orange.
    for (QLegendMarker* marker : m_chart->legend()->markers(m_monteCarlo)) {
        marker->setBrush(kMonteCarloColor);
        marker->setPen(QPen(kMonteCarloColor));
    }
}

QColor ScalarLabChart::monteCarloSwatchColour() const {
    const auto markers = m_chart->legend()->markers(m_monteCarlo);
    return markers.isEmpty() ? QColor() : markers.front()->brush().color();
}

void ScalarLabChart::drawForeground(QPainter* painter, const QRectF& rect) {
    QChartView::drawForeground(painter, rect);
    if (m_stemLabels.isEmpty()) return;
    painter->save();
    QFont font = painter->font();
    font.setBold(true);
    painter->setFont(font);
    const QFontMetrics metrics(font);
    const QRectF plot = m_chart->mapRectToScene(m_chart->plotArea());
    QList<QRectF> placed;
    for (const StemLabel& label : m_stemLabels) {
        const QPointF anchor = m_chart->mapToScene(m_chart->mapToPosition(label.at, m_exact));
        const QSizeF size(metrics.horizontalAdvance(label.text) + 8, metrics.height() + 2);
        // Above the Monte-Carlo square (17 px) with a gap; kept inside the plot; lifted over an
        // earlier label it would overlap.
        QRectF box(anchor.x() - size.width() / 2, anchor.y() - 14 - size.height(), size.width(), size.height());
        box.moveLeft(std::clamp(box.left(), plot.left(), std::max(plot.left(), plot.right() - box.width())));
        for (bool moved = true; moved;) {
            moved = false;
            for (const QRectF& other : placed)
                if (box.intersects(other)) {
                    box.moveBottom(other.top() - 2);
                    moved = true;
                }
        }
        if (box.top() < plot.top()) box.moveTop(plot.top());
        placed.push_back(box);
        painter->setPen(QColor(0, 0, 0, 60));
        painter->setBrush(QColor(255, 255, 255, 230));
        painter->drawRoundedRect(box, 3, 3);
        painter->setPen(QColor(40, 40, 40));
        painter->drawText(box, Qt::AlignCenter, label.text);
    }
    painter->restore();
}

void ScalarLabChart::clear(const QString& message) {
    m_stemLabels.clear();
    for (QXYSeries* series : allSeries()) series->clear();
    m_fSoft->setName(tr("f(soft)"));
    m_expectedFHard->setName(tr("E[f(hard)]"));
    m_fArgmax->setName(tr("f(argmax)"));
    m_monteCarlo->setName(tr("Monte-Carlo"));
    paintMonteCarloSwatch();
    m_axisX->setRange(0, 1);
    m_axisY->setRange(0, 1);
    m_chart->setTitle(message.isEmpty() ? tr("No result") : message);
}

int ScalarLabChart::exactPointCount() const { return m_exact->count(); }

int ScalarLabChart::monteCarloPointCount() const { return m_monteCarlo->count(); }

double ScalarLabChart::markerX(Marker marker) const {
    const QLineSeries* series = marker == Marker::FSoft           ? m_fSoft
                                : marker == Marker::ExpectedFHard ? m_expectedFHard
                                                                  : m_fArgmax;
    if (series->count() == 0) return std::numeric_limits<double>::quiet_NaN();
    return series->at(0).x();
}

double ScalarLabChart::xMin() const { return m_axisX->min(); }

double ScalarLabChart::xMax() const { return m_axisX->max(); }

double ScalarLabChart::yMax() const { return m_axisY->max(); }

QList<QXYSeries*> ScalarLabChart::allSeries() const {
    return {m_stems, m_exact, m_monteCarlo, m_fSoft, m_expectedFHard, m_fArgmax};
}

void ScalarLabChart::setMarker(QLineSeries* series, double x, double yTop, const QString& name) {
    series->replace(QList<QPointF>{QPointF(x, 0), QPointF(x, yTop)});
    series->setName(name);
}

}  // namespace saccade::ui
