#include "ui/labs/estimator_lab_histograms.h"

#include <QGridLayout>
#include <QLabel>
#include <algorithm>
#include <cmath>

#include "ui/charts/series_chart.h"
#include "ui/labs/estimator_lab_table.h"
#include "ui/number_format.h"

namespace saccade::ui {

namespace {

const QColor kReinforceColour(70, 120, 190);
const QColor kGumbelColour(225, 140, 40);
const QColor kExactColour(20, 20, 20);
const QColor kMeanColour(200, 30, 30);

// Series order within each chart.
enum HistogramSeries { Bars, ExactLine, MeanLine };

}  // namespace

EstimatorLabHistograms::EstimatorLabHistograms(QWidget* parent) : QWidget(parent) {
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(4);
    m_key = new QLabel(this);
    m_key->setObjectName(QStringLiteral("histogramKey"));
    m_key->setWordWrap(true);
    m_key->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
}

void EstimatorLabHistograms::ensureCharts(int count) {
    while (m_charts.size() < count) {
        auto* chart = new SeriesChart(this);
        chart->setObjectName(QStringLiteral("histogram%1").arg(m_charts.size()));
        chart->setCompact(true);
        m_charts << chart;
    }
    for (int i = 0; i < m_charts.size(); ++i) {
        m_charts[i]->setVisible(i < count);
        m_grid->addWidget(m_charts[i], i / kColumns, i % kColumns);
    }
    m_grid->addWidget(m_key, count / kColumns, count % kColumns);
    m_outside.fill(0, count);
}

void EstimatorLabHistograms::setResult(const EstimatorLabResult& r, int logit) {
    const auto j = static_cast<size_t>(logit);
    const int count = static_cast<int>(r.estimators.size());
    m_samples = r.samples;
    ensureCharts(count);
    const auto& edges = r.binEdges[j];
    for (int e = 0; e < count; ++e) {
        const auto& s = r.estimators[static_cast<size_t>(e)];
        const auto& h = s.histograms[j];
        // Heights are shares of the N samples, so the y axis reads the same whatever N.
        const double n = static_cast<double>(r.samples);
        QVector<QPointF> steps{{edges.front(), 0}};
        double top = 0;
        for (size_t b = 0; b < h.counts.size(); ++b) {
            const double share = static_cast<double>(h.counts[b]) / n;
            steps << QPointF(edges[b], share) << QPointF(edges[b + 1], share);
            top = std::max(top, share);
        }
        steps << QPointF(edges.back(), 0);
        top = top > 0 ? top * 1.08 : 1;
        const bool gumbel = s.name.rfind("gumbel", 0) == 0;
        SeriesChart::Series bars{
            tr("estimates"), steps, false, gumbel ? kGumbelColour : kReinforceColour, true,
            false,           false};
        SeriesChart::Series exact{
            tr("exact"), {{r.exact[j], 0}, {r.exact[j], top}}, true, kExactColour, false, false,
            false};
        SeriesChart::Series mean{
            tr("mean"), {{s.mean[j], 0}, {s.mean[j], top}}, false, kMeanColour, false, false,
            false};
        m_charts[e]->setSeries({bars, exact, mean}, 0, top);
        const qint64 outside = h.below + h.above;
        m_outside[e] = outside;
        QString title =
            tr("%1<br><span style='font-weight:normal'>bias %2, |z| %3")
                .arg(QString::fromStdString(s.name), formatFixed(s.bias[j], estimatorMeanDecimals(r, logit)),
                     formatFixed(s.standardError[j] > 0 ? std::abs(s.bias[j]) / s.standardError[j] : NAN, 1));
        if (outside > 0) title += tr(", %1 outside").arg(formatCount(outside));
        title += QStringLiteral("</span>");
        m_charts[e]->setTitles(title, tr("estimate of dE[r]/d logit %1").arg(logit),
                               tr("share of samples"));
        m_charts[e]->setToolTip(
            tr("%1: %2 one-sample estimates of dE[r]/d logit %3; mean %4 (stderr), "
               "exact %5; %6 fell outside the shared range [%7, %8]")
                .arg(QString::fromStdString(s.name), formatCount(r.samples))
                .arg(logit)
                .arg(formatEstimate(s.mean[j], s.standardError[j]), formatNumber(r.exact[j]), formatCount(outside),
                     formatNumber(edges.front(), 3), formatNumber(edges.back(), 3)));
    }
    m_key->setText(
        tr("<b>Logit %1</b>, %2 one-sample estimates per chart, same bins in every chart.<br>"
           "<span style='color:#141414'>- - -</span> exact gradient %3<br>"
           "<span style='color:#c81e1e'>\u2014\u2014</span> the estimator's mean<br>"
           "<span style='color:#4678be'>\u25a0</span> REINFORCE "
           "<span style='color:#e18c28'>\u25a0</span> Gumbel ST")
            .arg(logit)
            .arg(formatCount(r.samples), formatNumber(r.exact[j], 4)));
}

qint64 EstimatorLabHistograms::shownSamples(int index) const {
    if (index < 0 || index >= m_charts.size() || m_charts[index]->series().isEmpty()) return 0;
    const auto& points = m_charts[index]->series()[Bars].points;
    // Steps are (edge_b, c_b), (edge_b+1, c_b) after the opening (edge_0, 0): every second point
    // from index 1 carries one bin's count.
    double total = 0;
    for (int k = 1; k + 1 < points.size(); k += 2) total += points[k].y();
    return static_cast<qint64>(std::llround(total * static_cast<double>(m_samples))) +
           m_outside.value(index);
}

double EstimatorLabHistograms::exactLineX(int index) const {
    if (index < 0 || index >= m_charts.size() || m_charts[index]->series().size() <= ExactLine)
        return NAN;
    return m_charts[index]->series()[ExactLine].points.front().x();
}

double EstimatorLabHistograms::meanLineX(int index) const {
    if (index < 0 || index >= m_charts.size() || m_charts[index]->series().size() <= MeanLine)
        return NAN;
    return m_charts[index]->series()[MeanLine].points.front().x();
}

}  // namespace saccade::ui
