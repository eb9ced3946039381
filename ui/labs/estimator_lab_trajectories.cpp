#include "ui/labs/estimator_lab_trajectories.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/charts/series_chart.h"
#include "ui/number_format.h"

namespace saccade::ui {

namespace {

// Ten distinguishable category colours (Tableau 10); more categories repeat them.
const QColor kCategoryColours[] = {
    {31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};

QColor categoryColour(size_t c) { return kCategoryColours[c % 10]; }

}  // namespace

EstimatorLabTrajectories::EstimatorLabTrajectories(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_key = new QLabel(this);
    m_key->setObjectName(QStringLiteral("trajectoryKey"));
    m_key->setWordWrap(true);
    layout->addWidget(m_key);
    m_grid = new QGridLayout;
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(4);
    layout->addLayout(m_grid, 1);
}

int EstimatorLabTrajectories::chartCount() const {
    int visible = 0;
    for (const auto* chart : m_charts) visible += chart->isVisibleTo(this) ? 1 : 0;
    return visible;
}

void EstimatorLabTrajectories::setResult(const EstimatorLabResult& r) {
    const int count = static_cast<int>(r.training.size());
    while (m_charts.size() < count) {
        auto* chart = new SeriesChart(this);
        chart->setObjectName(QStringLiteral("trajectory%1").arg(m_charts.size()));
        chart->setCompact(true);
        m_grid->addWidget(chart, m_charts.size() / kColumns, m_charts.size() % kColumns);
        m_charts << chart;
    }
    for (int i = 0; i < m_charts.size(); ++i) m_charts[i]->setVisible(i < count);
    QStringList key;
    for (size_t c = 0; c < r.probs.size(); ++c)
        key << tr("<span style='color:%1'>\u2014\u2014</span> p%2 (r = %3)")
                   .arg(categoryColour(c).name())
                   .arg(c)
                   .arg(formatNumber(r.rewards[c], 4));
    m_key->setText(count > 0 ? tr("Probability of each category against the step: %1")
                                   .arg(key.join(QStringLiteral(" &nbsp; ")))
                             : QString());
    for (int t = 0; t < count; ++t) {
        const auto& run = r.training[static_cast<size_t>(t)];
        QVector<SeriesChart::Series> lines;
        for (size_t c = 0; c < r.probs.size(); ++c) {
            SeriesChart::Series line;
            line.name = tr("p%1 (r=%2)").arg(c).arg(formatNumber(r.rewards[c], 4));
            for (size_t step = 0; step < run.probs.size(); ++step)
                line.points << QPointF(static_cast<double>(step), run.probs[step][c]);
            line.dots = false;
            line.legend = false;  // one key above all the charts
            line.colour = categoryColour(c);
            lines << line;
        }
        m_charts[t]->setSeries(lines, 0, 1);
        m_charts[t]->setTitles(
            tr("%1<br><span style='font-weight:normal'>E[r] %2 \u2192 %3</span>")
                .arg(QString::fromStdString(run.name), formatNumber(run.expectedReward.front(), 4),
                     formatNumber(run.expectedReward.back(), 4)),
            tr("step"), tr("probability"));
    }
}

}  // namespace saccade::ui
