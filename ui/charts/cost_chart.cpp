#include "ui/charts/cost_chart.h"

#include "ui/charts/axis_ticks.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QValueAxis>
#include <algorithm>

namespace saccade::ui {

namespace {

const QColor kStageColours[] = {QColor(70, 130, 200), QColor(230, 150, 40), QColor(200, 70, 70), QColor(60, 170, 110),
                                QColor(150, 100, 190), QColor(130, 130, 130)};

double valueOf(const RuleCost& rule, const QString& stage, bool flops) {
    for (const auto& s : rule.stages)
        if (QString::fromStdString(s.stage) == stage) return flops ? s.mflopsPerImage : s.msPerImage;
    return 0;
}

}  // namespace

CostChart::CostChart(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("costChart"));
    auto* chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
    setMinimumWidth(160);  // pages share the window: never widen it
    clear();
}

void CostChart::clear() {
    chart()->removeAllSeries();
    for (auto* axis : chart()->axes()) chart()->removeAxis(axis);
    m_categories.clear();
    m_stages.clear();
    // Empty, it says what it will show.
    chart()->setTitle(tr("Time or FLOPs per stage of the forward pass, for each rule: press Measure the cost"));
}

void CostChart::setReport(const CostReport& report, bool flops) {
    clear();
    m_report = report;
    m_flops = flops;
    for (const auto& rule : report.rules)
        for (const auto& s : rule.stages)
            if (!m_stages.contains(QString::fromStdString(s.stage))) m_stages << QString::fromStdString(s.stage);
    // Horizontal bars run bottom-up: the first rule goes on top.
    QStringList bottomUp;
    for (auto it = report.rules.rbegin(); it != report.rules.rend(); ++it)
        bottomUp << QStringLiteral("%1 / %2").arg(QString::fromStdString(it->variant), QString::fromStdString(it->rule));
    m_categories = bottomUp;
    std::reverse(m_categories.begin(), m_categories.end());
    auto* series = new QHorizontalStackedBarSeries;
    double top = 0;
    for (int k = 0; k < m_stages.size(); ++k) {
        auto* set = new QBarSet(m_stages[k]);
        set->setColor(kStageColours[k % 6]);
        for (auto it = report.rules.rbegin(); it != report.rules.rend(); ++it) set->append(valueOf(*it, m_stages[k], flops));
        series->append(set);
    }
    for (const auto& rule : report.rules) top = std::max(top, flops ? rule.mflopsPerImage : rule.msPerImage);
    chart()->addSeries(series);
    auto* y = new QBarCategoryAxis;
    y->append(bottomUp);
    auto* x = new QValueAxis;
    setRoundTicks(x, 0, top > 0 ? top * 1.05 : 1);
    x->setTitleText(flops ? tr("MFLOP per image (counted)") : tr("ms per image (measured, %1)").arg(QString::fromStdString(report.device)));
    chart()->addAxis(y, Qt::AlignLeft);
    chart()->addAxis(x, Qt::AlignBottom);
    series->attachAxis(y);
    series->attachAxis(x);
    chart()->setTitle(flops ? tr("FLOPs per stage") : tr("Time per stage"));
}

QString CostChart::csv() const {
    QStringList header{QStringLiteral("variant"), QStringLiteral("rule")};
    for (const auto& s : m_stages) header << s;
    header << QStringLiteral("total");
    QString out = header.join(QLatin1Char(',')) + QStringLiteral(",unit\n");
    for (const auto& rule : m_report.rules) {
        QStringList row{QString::fromStdString(rule.variant), QString::fromStdString(rule.rule)};
        for (const auto& s : m_stages) row << QString::number(valueOf(rule, s, m_flops), 'g', 6);
        row << QString::number(m_flops ? rule.mflopsPerImage : rule.msPerImage, 'g', 6)
            << (m_flops ? QStringLiteral("MFLOP") : QStringLiteral("ms"));
        out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

}  // namespace saccade::ui
