// The scalar lab page: the worked example, draws, functions, Monte-Carlo and input errors.

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QtTest>

#include "ui/charts/scalar_lab_chart.h"
#include "ui/labs/scalar_lab_form.h"
#include "ui/labs/scalar_lab_panel.h"
#include "ui/labs/scalar_lab_result_view.h"

using saccade::ui::ScalarLabChart;
using saccade::ui::ScalarLabPanel;
using Field = saccade::ui::ScalarLabResultView::Field;

namespace {

// The leading number of a field such as "32.79 ± 0.37   (n = 10,000)".
double leadingNumber(const QString& text) {
    bool ok = false;
    const double value = text.section(QLatin1Char(' '), 0, 0).toDouble(&ok);
    return ok ? value : qQNaN();
}

}  // namespace

class TestScalarLabPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void workedExample();
    void draw_data();
    void draw();
    void functions_data();
    void functions();
    void badInputs_data();
    void badInputs();
    void monteCarloSynchronous();
    void monteCarloOff();
    void monteCarloBackgroundNewestWins();
    void uFromSeedIsReproducible();

private:
    static QString text(const ScalarLabPanel& panel, Field field) {
        return panel.resultView()->text(field);
    }
};

void TestScalarLabPanel::workedExample() {
    ScalarLabPanel panel;
    QVERIFY(panel.errorText().isEmpty());
    QCOMPARE(text(panel, Field::SoftContext), QStringLiteral("4.8"));
    QCOMPARE(text(panel, Field::ExpectedHardContext), QStringLiteral("4.8"));
    QCOMPARE(text(panel, Field::FSoft), QStringLiteral("23.04"));
    QCOMPARE(leadingNumber(text(panel, Field::ExpectedFHard)), 32.8);
    QCOMPARE(text(panel, Field::Gap), QStringLiteral("9.76"));
    QVERIFY2(text(panel, Field::Argmax).startsWith(QStringLiteral("2 ")),
             qPrintable(text(panel, Field::Argmax)));
    QCOMPARE(text(panel, Field::FArgmax), QStringLiteral("4"));
    QCOMPARE(text(panel, Field::DrawSelection), QStringLiteral("index 1, value 6"));
    QCOMPARE(text(panel, Field::DrawF), QStringLiteral("36"));
    QVERIFY(panel.resultView()->isEnabled());
}

void TestScalarLabPanel::draw_data() {
    QTest::addColumn<double>("u");
    QTest::addColumn<QString>("interval");
    QTest::addColumn<QString>("selection");
    QTest::addColumn<QString>("f");
    QTest::newRow("u=0.65 selects 6") << 0.65 << "0.65   in [0.5, 0.8)"
                                      << "index 1, value 6"
                                      << "36";
    QTest::newRow("u=0.3 selects 2") << 0.3 << "0.3   in [0, 0.5)"
                                     << "index 0, value 2"
                                     << "4";
    QTest::newRow("u=0.5 is B's lower edge") << 0.5 << "0.5   in [0.5, 0.8)"
                                             << "index 1, value 6"
                                             << "36";
    QTest::newRow("u=0.9 selects 10") << 0.9 << "0.9   in [0.8, 1)"
                                      << "index 2, value 10"
                                      << "100";
}

void TestScalarLabPanel::draw() {
    QFETCH(double, u);
    QFETCH(QString, interval);
    QFETCH(QString, selection);
    QFETCH(QString, f);
    ScalarLabPanel panel;
    panel.form()->uSpin()->setValue(u);
    QCOMPARE(text(panel, Field::DrawU), interval);
    QCOMPARE(text(panel, Field::DrawSelection), selection);
    QCOMPARE(text(panel, Field::DrawF), f);
}

void TestScalarLabPanel::functions_data() {
    QTest::addColumn<QString>("function");
    QTest::addColumn<QString>("coefficients");
    QTest::addColumn<double>("fSoft");
    QTest::addColumn<double>("expectedFHard");
    QTest::newRow("identity: no gap") << "identity"
                                      << "" << 4.8 << 4.8;
    QTest::newRow("square") << "square"
                            << "" << 23.04 << 32.8;
    QTest::newRow("cube") << "cube"
                          << "" << 110.592 << 268.8;
    QTest::newRow("relu of positives: no gap") << "relu"
                                               << "" << 4.8 << 4.8;
    QTest::newRow("poly 1 + 2x^2") << "poly:"
                                   << "1, 0, 2" << 47.08 << 66.6;
}

void TestScalarLabPanel::functions() {
    QFETCH(QString, function);
    QFETCH(QString, coefficients);
    QFETCH(double, fSoft);
    QFETCH(double, expectedFHard);
    ScalarLabPanel panel;
    const int index = panel.form()->functionCombo()->findText(function);
    QVERIFY2(index >= 0, qPrintable(function));
    if (!coefficients.isEmpty()) panel.form()->coefficientsEdit()->setText(coefficients);
    panel.form()->functionCombo()->setCurrentIndex(index);
    QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
    QVERIFY(qFuzzyCompare(leadingNumber(text(panel, Field::FSoft)), fSoft));
    QVERIFY(qFuzzyCompare(leadingNumber(text(panel, Field::ExpectedFHard)), expectedFHard));
    QVERIFY(qFuzzyCompare(panel.chart()->markerX(ScalarLabChart::Marker::FSoft), fSoft));
    QVERIFY(qFuzzyCompare(panel.chart()->markerX(ScalarLabChart::Marker::ExpectedFHard),
                          expectedFHard));
}

void TestScalarLabPanel::badInputs_data() {
    QTest::addColumn<QString>("values");
    QTest::addColumn<QString>("probs");
    QTest::addColumn<QString>("coefficients");
    QTest::addColumn<QString>("expected");
    QTest::newRow("length mismatch") << "2, 6, 10"
                                     << "0.5,0.3"
                                     << ""
                                     << "length mismatch";
    QTest::newRow("sum is not 1") << "2, 6, 10"
                                  << "0.5,0.3,0.3"
                                  << ""
                                  << "sum to 1.1";
    QTest::newRow("negative probability") << "2, 6, 10"
                                          << "-0.1,0.9,0.2"
                                          << ""
                                          << "probability 1 is negative";
    QTest::newRow("not a number") << "2, six, 10"
                                  << "0.5,0.3,0.2"
                                  << ""
                                  << "values";
    QTest::newRow("empty probabilities") << "2, 6, 10"
                                         << ""
                                         << ""
                                         << "probabilities";
    QTest::newRow("bad polynomial") << "2, 6, 10"
                                    << "0.5,0.3,0.2"
                                    << "1,,2"
                                    << "polynomial coefficients";
}

void TestScalarLabPanel::badInputs() {
    QFETCH(QString, values);
    QFETCH(QString, probs);
    QFETCH(QString, coefficients);
    QFETCH(QString, expected);
    ScalarLabPanel panel;
    QCOMPARE(panel.chart()->exactPointCount(), 3);
    if (!coefficients.isEmpty()) {
        panel.form()->coefficientsEdit()->setText(coefficients);
        panel.form()->functionCombo()->setCurrentText(QStringLiteral("poly:"));
    }
    panel.form()->valuesEdit()->setText(values);
    panel.form()->probsEdit()->setText(probs);

    QVERIFY2(
        panel.errorText().contains(expected, Qt::CaseInsensitive),
        qPrintable(
            QStringLiteral("error \"%1\" should name \"%2\"").arg(panel.errorText(), expected)));
    // Stale numbers are gone and greyed; the chart is empty.
    QCOMPARE(text(panel, Field::SoftContext), QStringLiteral("\u2014"));
    QCOMPARE(text(panel, Field::ExpectedFHard), QStringLiteral("\u2014"));
    QVERIFY(!panel.resultView()->isEnabled());
    QCOMPARE(panel.chart()->exactPointCount(), 0);
    QCOMPARE(panel.chart()->monteCarloPointCount(), 0);
    QVERIFY(qIsNaN(panel.chart()->markerX(ScalarLabChart::Marker::FSoft)));

    // Fixing the input brings everything back.
    panel.form()->resetToWorkedExample();
    QVERIFY(panel.errorText().isEmpty());
    QCOMPARE(text(panel, Field::FSoft), QStringLiteral("23.04"));
    QCOMPARE(panel.chart()->exactPointCount(), 3);
}

void TestScalarLabPanel::monteCarloSynchronous() {
    ScalarLabPanel panel;
    panel.form()->samplesSpin()->setValue(20'000);
    QVERIFY(!panel.isBusy());
    const QString mc = text(panel, Field::MonteCarlo);
    QVERIFY2(mc.endsWith(QStringLiteral("(n = 20,000)")), qPrintable(mc));
    // The standard deviation of f(hard) is about 37.6, so the stderr is about 0.27.
    QVERIFY2(qAbs(leadingNumber(mc) - 32.8) < 1.5, qPrintable(mc));
    QCOMPARE(panel.chart()->monteCarloPointCount(), 3);
}

void TestScalarLabPanel::monteCarloOff() {
    ScalarLabPanel panel;
    panel.form()->samplesSpin()->setValue(0);
    QCOMPARE(text(panel, Field::MonteCarlo), QStringLiteral("off (0 samples)"));
    QCOMPARE(panel.chart()->monteCarloPointCount(), 0);
    QCOMPARE(panel.chart()->exactPointCount(), 3);
}

void TestScalarLabPanel::monteCarloBackgroundNewestWins() {
    ScalarLabPanel panel;
    panel.form()->samplesSpin()->setValue(1'000'000);
    // The exact numbers are there at once; the Monte-Carlo row waits for the worker.
    QCOMPARE(text(panel, Field::FSoft), QStringLiteral("23.04"));
    QVERIFY(panel.isBusy());
    QCOMPARE(text(panel, Field::MonteCarlo), QStringLiteral("computing\u2026"));
    panel.form()->samplesSpin()->setValue(900'000);
    panel.form()->samplesSpin()->setValue(400'000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30'000);
    const QString mc = text(panel, Field::MonteCarlo);
    QVERIFY2(mc.endsWith(QStringLiteral("(n = 400,000)")), qPrintable(mc));
    QVERIFY2(qAbs(leadingNumber(mc) - 32.8) < 0.4, qPrintable(mc));
    QCOMPARE(panel.chart()->monteCarloPointCount(), 3);

    // A synchronous edit while a run is in flight drops the run's late result.
    panel.form()->samplesSpin()->setValue(1'000'000);
    QVERIFY(panel.isBusy());
    panel.form()->samplesSpin()->setValue(1'000);
    QVERIFY(!panel.isBusy());
    QTest::qWait(200);
    QVERIFY2(text(panel, Field::MonteCarlo).endsWith(QStringLiteral("(n = 1,000)")),
             qPrintable(text(panel, Field::MonteCarlo)));
}

void TestScalarLabPanel::uFromSeedIsReproducible() {
    ScalarLabPanel panel;
    panel.form()->drawFromSeedCheck()->setChecked(true);
    QVERIFY(!panel.form()->uSpin()->isEnabled());
    const QString first = text(panel, Field::DrawU);
    const double u = leadingNumber(first);
    QVERIFY2(u >= 0.0 && u < 1.0, qPrintable(first));
    panel.form()->seedSpin()->setValue(2);
    const QString second = text(panel, Field::DrawU);
    QVERIFY(second != first);
    panel.form()->seedSpin()->setValue(1);
    QCOMPARE(text(panel, Field::DrawU), first);
}

QTEST_MAIN(TestScalarLabPanel)
#include "test_scalar_lab_panel.moc"
