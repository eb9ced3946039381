// Charts as a reviewer reads them: probability axes end at 1 on round ticks, and the true class
// is always on the "This step" chart, named when its bar is too short to see.

#include <QBarCategoryAxis>
#include <QChart>
#include <QValueAxis>
#include <QFontInfo>
#include <QLegend>
#include <QtTest>

#include "ui/charts/axis_ticks.h"
#include "ui/charts/chart_figure.h"
#include "ui/charts/class_prob_chart.h"
#include "ui/charts/series_chart.h"
#include <QChartView>

using namespace saccade::ui;

class TestCharts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void probabilityAxisEndsAtOne();
    void trueClassIsAlwaysShown();
    void roundTicksSurviveAJumpInRange();
    void aFigureDrawsItsChartInAFiguresType();
};

void TestCharts::probabilityAxisEndsAtOne() {
    ClassProbChart chart;
    chart.setProbabilities({0.999, 0.001}, {QStringLiteral("a"), QStringLiteral("b")}, 0);
    const auto axes = chart.chart()->axes(Qt::Horizontal);
    QCOMPARE(axes.size(), 1);
    auto* x = qobject_cast<QValueAxis*>(axes.front());
    QVERIFY(x);
    QCOMPARE(x->min(), 0.0);
    QCOMPARE(x->max(), 1.0);
    // Labels 0, 0.5 and 1 (0.25 and 0.75 were elided in the narrow side panel); minor ticks between.
    QCOMPARE(x->tickCount(), 3);
    QCOMPARE(x->minorTickCount(), 1);
    QCOMPARE(x->labelFormat(), QStringLiteral("%.1f"));
}

void TestCharts::trueClassIsAlwaysShown() {
    ClassProbChart chart;
    const QVector<double> probs = {0.30, 0.25, 0.20, 0.15, 0.06, 0.04};
    QStringList names;
    for (int i = 0; i < probs.size(); ++i) names << QStringLiteral("c%1").arg(i);
    // The truth (c5) is sixth: it comes as one bar more and says it is the true class.
    chart.setProbabilities(probs, names, /*truth=*/5, /*maxBars=*/4);
    QCOMPARE(chart.shownCategories(),
             (QStringList{QStringLiteral("c0"), QStringLiteral("c1"), QStringLiteral("c2"), QStringLiteral("c3"),
                          QStringLiteral("c5 (true)")}));
    QCOMPARE(chart.shownValues().last(), 0.04);
    QCOMPARE(chart.barClasses().front(), 5);  // the bottom bar, drawn green
    // Among the bars and visible: no note; too short to see green: named.
    chart.setProbabilities(probs, names, 1, 5);
    QVERIFY(!chart.shownCategories().join(QLatin1Char('|')).contains(QStringLiteral("(true)")));
    chart.setProbabilities({0.97, 0.02, 0.01}, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}, 1, 5);
    QCOMPARE(chart.shownCategories().at(1), QStringLiteral("b (true)"));
}

// A training run's x axis goes from 0..10 to millions of iterations and back: each change lays
// out only a handful of ticks (a stale 2.5 step over 0..1e7 would be 4 million labels).
void TestCharts::roundTicksSurviveAJumpInRange() {
    auto* chart = new QChart;
    auto* axis = new QValueAxis;
    chart->addAxis(axis, Qt::AlignBottom);
    QChartView view(chart);
    view.resize(600, 300);
    view.show();
    setRoundTicks(axis, 0, 10);
    QCOMPARE(axis->tickInterval(), 2.5);
    QCOMPARE(axis->labelFormat(), QStringLiteral("%.1f"));
    setRoundTicks(axis, 0, 1e7);
    QCOMPARE(axis->tickInterval(), 2.5e6);
    QCOMPARE(axis->max(), 1e7);
    setRoundTicks(axis, 0, 1);
    QCOMPARE(axis->tickInterval(), 0.25);
    QCOMPARE(axis->labelFormat(), QStringLiteral("%.2f"));
    // A count axis never shows 2.5 iterations.
    setRoundTicks(axis, 0, 10, 5, /*integers=*/true);
    QCOMPARE(axis->tickInterval(), 2.0);
    QCOMPARE(axis->labelFormat(), QStringLiteral("%.0f"));
    setRoundTicks(axis, 0, 3, 5, /*integers=*/true);
    QCOMPARE(axis->tickInterval(), 1.0);
}

// Issue 52 item 11: a chart exported as a figure draws its ticks, titles and legend in a figure's
// type (13 px and up), not the panel's small one; the panel keeps its own type afterwards.
void TestCharts::aFigureDrawsItsChartInAFiguresType() {
    SeriesChart chart;
    chart.setCompact(true);  // a small multiple: the smallest panel type
    chart.setTitles(QStringLiteral("Deletion"), QStringLiteral("fraction removed"), QStringLiteral("accuracy"));
    SeriesChart::Series line;
    line.name = QStringLiteral("attention");
    line.points = {{0, 0.9}, {0.5, 0.6}, {1, 0.1}};
    chart.setSeries({line});
    QAbstractAxis* y = chart.chart()->axes(Qt::Vertical).value(0);
    QVERIFY(y);
    const QFont panel = y->labelsFont(), title = chart.chart()->titleFont();
    QVERIFY(QFontInfo(panel).pixelSize() < kFigureTickPixels);
    {
        const FigureType type(chart.chart());
        QCOMPARE(QFontInfo(y->labelsFont()).pixelSize(), kFigureTickPixels);
        QCOMPARE(QFontInfo(chart.chart()->titleFont()).pixelSize(), kFigureTickPixels + 2);
        QCOMPARE(QFontInfo(chart.chart()->legend()->font()).pixelSize(), kFigureTickPixels);
    }
    QCOMPARE(y->labelsFont(), panel);
    QCOMPARE(chart.chart()->titleFont(), title);
}

QTEST_MAIN(TestCharts)
#include "test_charts.moc"
