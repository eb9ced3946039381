// The f(hard) distribution chart: points, merged outcomes, markers and axis ranges.

#include <QtTest>

#include "analysis/labs/scalar_lab.h"
#include "ui/charts/scalar_lab_chart.h"

using saccade::ScalarLabInput;
using saccade::ScalarLabResult;
using saccade::ui::ScalarLabChart;

namespace {

ScalarLabResult compute(const std::vector<double>& values, const std::vector<double>& probs,
                        const std::string& function, std::int64_t samples) {
    ScalarLabInput input;
    input.values = values;
    input.probs = probs;
    input.function = function;
    input.u = 0.65;
    input.samples = samples;
    auto result = saccade::runScalarLab(input);
    if (!result) qFatal("runScalarLab failed: %s", result.error().c_str());
    return result.value();
}

}  // namespace

class TestScalarLabChart : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void points_data();
    void points();
    void markersInsideAxes_data();
    void markersInsideAxes();
    void clearEmptiesEverything();
    void labelsAndLegendMatchTheMarks();
};

void TestScalarLabChart::points_data() {
    QTest::addColumn<QString>("values");
    QTest::addColumn<QString>("probs");
    QTest::addColumn<QString>("function");
    QTest::addColumn<int>("samples");
    QTest::addColumn<int>("exactPoints");
    QTest::addColumn<int>("monteCarloPoints");
    QTest::newRow("worked example") << "2,6,10"
                                    << "0.5,0.3,0.2"
                                    << "square" << 1000 << 3 << 3;
    QTest::newRow("no Monte-Carlo") << "2,6,10"
                                    << "0.5,0.3,0.2"
                                    << "square" << 0 << 3 << 0;
    QTest::newRow("equal f values merge") << "-2,2,3"
                                          << "0.25,0.25,0.5"
                                          << "square" << 100 << 2 << 2;
    QTest::newRow("one value") << "7"
                               << "1"
                               << "identity" << 10 << 1 << 1;
    QTest::newRow("five values") << "1,2,3,4,5"
                                 << "0.2,0.2,0.2,0.2,0.2"
                                 << "tanh" << 50 << 5 << 5;
}

void TestScalarLabChart::points() {
    QFETCH(QString, values);
    QFETCH(QString, probs);
    QFETCH(QString, function);
    QFETCH(int, samples);
    QFETCH(int, exactPoints);
    QFETCH(int, monteCarloPoints);
    auto toVector = [](const QString& text) {
        std::vector<double> out;
        for (const QString& item : text.split(QLatin1Char(','))) out.push_back(item.toDouble());
        return out;
    };
    ScalarLabChart chart;
    chart.setResult(compute(toVector(values), toVector(probs), function.toStdString(), samples));
    QCOMPARE(chart.exactPointCount(), exactPoints);
    QCOMPARE(chart.monteCarloPointCount(), monteCarloPoints);
}

void TestScalarLabChart::markersInsideAxes_data() {
    QTest::addColumn<QString>("function");
    QTest::addColumn<double>("fSoft");
    QTest::addColumn<double>("expectedFHard");
    QTest::addColumn<double>("fArgmax");
    QTest::newRow("square") << "square" << 23.04 << 32.8 << 4.0;
    QTest::newRow("identity: markers coincide") << "identity" << 4.8 << 4.8 << 2.0;
    QTest::newRow("cube") << "cube" << 110.592 << 268.8 << 8.0;
}

void TestScalarLabChart::markersInsideAxes() {
    QFETCH(QString, function);
    QFETCH(double, fSoft);
    QFETCH(double, expectedFHard);
    QFETCH(double, fArgmax);
    ScalarLabChart chart;
    const ScalarLabResult result = compute({2, 6, 10}, {0.5, 0.3, 0.2}, function.toStdString(), 0);
    chart.setResult(result);
    QVERIFY(qFuzzyCompare(chart.markerX(ScalarLabChart::Marker::FSoft), fSoft));
    QVERIFY(qFuzzyCompare(chart.markerX(ScalarLabChart::Marker::ExpectedFHard), expectedFHard));
    QVERIFY(qFuzzyCompare(chart.markerX(ScalarLabChart::Marker::FArgmax), fArgmax));
    // Every marker and every outcome lies strictly inside the x range, with margin.
    const double span = chart.xMax() - chart.xMin();
    QVERIFY(span > 0);
    for (double x :
         {fSoft, expectedFHard, fArgmax, result.outcomes.front().f, result.outcomes.back().f}) {
        QVERIFY2(x - chart.xMin() >= 0.04 * span && chart.xMax() - x >= 0.04 * span,
                 qPrintable(QStringLiteral("%1 not inside [%2, %3] with margin")
                                .arg(x)
                                .arg(chart.xMin())
                                .arg(chart.xMax())));
    }
    // Room above the tallest stem (p = 0.5) for its label, and never a silly range.
    QVERIFY(chart.yMax() >= 0.55 && chart.yMax() <= 1.3);
}

void TestScalarLabChart::clearEmptiesEverything() {
    ScalarLabChart chart;
    chart.setResult(compute({2, 6, 10}, {0.5, 0.3, 0.2}, "square", 100));
    chart.clear(QStringLiteral("No result"));
    QCOMPARE(chart.exactPointCount(), 0);
    QCOMPARE(chart.monteCarloPointCount(), 0);
    QVERIFY(qIsNaN(chart.markerX(ScalarLabChart::Marker::ExpectedFHard)));
}

void TestScalarLabChart::labelsAndLegendMatchTheMarks() {
    ScalarLabChart chart;
    chart.setResult(compute({2, 6, 10}, {0.5, 0.3, 0.2}, "square", 100));
    QCOMPARE(chart.stemLabels(), QStringList({QStringLiteral("f=4, p=0.5"), QStringLiteral("f=36, p=0.3"),
                                              QStringLiteral("f=100, p=0.2")}));
    // The hollow orange squares have an orange swatch, not a white one.
    QCOMPARE(chart.monteCarloSwatchColour(), QColor(0xff, 0x7f, 0x0e));
    chart.clear();
    QVERIFY(chart.stemLabels().isEmpty());
    QCOMPARE(chart.monteCarloSwatchColour(), QColor(0xff, 0x7f, 0x0e));
}

QTEST_MAIN(TestScalarLabChart)
#include "test_scalar_lab_chart.moc"
