// The estimator lab page: results without clicks, REINFORCE means against the exact gradient in
// the table, histograms holding every sample on one x range, training charts, and bad input that
// shows one line and keeps the previous result.

#include <cmath>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QtTest>

#include "ui/charts/series_chart.h"
#include "ui/labs/estimator_lab_form.h"
#include "ui/labs/estimator_lab_histograms.h"
#include "ui/labs/estimator_lab_panel.h"
#include "ui/labs/estimator_lab_table.h"
#include "ui/labs/estimator_lab_trajectories.h"

using saccade::ui::EstimatorLabPanel;
using Table = saccade::ui::EstimatorLabTable;

namespace {

constexpr int kTimeoutMs = 60'000;

double cellNumber(const EstimatorLabPanel& panel, const QString& row, Table::Column column) {
    bool ok = false;
    const double v = panel.table()->cellText(panel.table()->rowOf(row), column).toDouble(&ok);
    return ok ? v : qQNaN();
}

void runWith(EstimatorLabPanel& panel, const QString& parameter, const QString& categorical,
             const QString& rewards, int samples) {
    auto* form = panel.form();
    form->parameterCombo()->setCurrentText(parameter);
    form->categoricalEdit()->setText(categorical);
    form->rewardsEdit()->setText(rewards);
    form->samplesSpin()->setValue(samples);
    panel.run();
}

}  // namespace

class TestEstimatorLabPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void showsTheDefaultsWithoutClicks();
    void reinforceMeansMatchTheExactGradient_data();
    void reinforceMeansMatchTheExactGradient();
    void histogramsHoldEverySampleOnOneRange();
    void badInputShowsOneLineAndKeepsThePreviousResult_data();
    void badInputShowsOneLineAndKeepsThePreviousResult();
    void newestRequestWins();
};

void TestEstimatorLabPanel::showsTheDefaultsWithoutClicks() {
    EstimatorLabPanel panel;
    QVERIFY(!panel.isBusy());  // nothing runs before the page is shown ...
    QVERIFY(!panel.result().has_value());
    panel.show();
    QVERIFY(panel.isBusy());  // ... then the defaults run, off the GUI thread
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kTimeoutMs);
    QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
    QVERIFY(panel.result().has_value());
    QCOMPARE(panel.table()->rowCount(), 8);  // exact + 3 REINFORCE + 4 temperatures
    QCOMPARE(panel.histograms()->chartCount(), 7);
    QCOMPARE(panel.trajectories()->chartCount(), 8);
    QCOMPARE(panel.logitCombo()->count(), 3);
    QCOMPARE(panel.logitCombo()->currentIndex(), 2);  // the largest reward's logit
    QCOMPARE(cellNumber(panel, QStringLiteral("exact"), Table::Mean), 0.58);
    // Every training chart: one line per category, steps + 1 points, from the same start.
    const int steps = panel.form()->trainStepsSpin()->value();
    for (int t = 0; t < 8; ++t) {
        const auto& lines = panel.trajectories()->chart(t)->series();
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0].points.size(), steps + 1);
        QCOMPARE(lines[2].points.front().y(), 0.2);
    }
}

void TestEstimatorLabPanel::reinforceMeansMatchTheExactGradient_data() {
    QTest::addColumn<QString>("parameter");
    QTest::addColumn<QString>("categorical");
    QTest::addColumn<QString>("rewards");
    QTest::newRow("worked example") << "Probabilities p"
                                    << "0.5, 0.3, 0.2"
                                    << "1, 2, 5";
    QTest::newRow("offset rewards") << "Probabilities p"
                                    << "0.5, 0.3, 0.2"
                                    << "11, 12, 15";
    QTest::newRow("four logits") << "Logits"
                                 << "0, 1, -1, 0.5"
                                 << "0, 1, 3, 2";
}

void TestEstimatorLabPanel::reinforceMeansMatchTheExactGradient() {
    QFETCH(QString, parameter);
    QFETCH(QString, categorical);
    QFETCH(QString, rewards);
    EstimatorLabPanel panel;
    runWith(panel, parameter, categorical, rewards, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kTimeoutMs);
    QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
    for (int logit = 0; logit < panel.logitCombo()->count(); ++logit) {
        panel.logitCombo()->setCurrentIndex(logit);
        const double exact = cellNumber(panel, QStringLiteral("exact"), Table::Mean);
        QVERIFY(qIsFinite(exact));
        // The table rounds to its column's decimals (at least four), no further.
        const QString exactText = panel.table()->cellText(0, Table::Mean);
        const int decimals = int(exactText.size() - exactText.indexOf(QLatin1Char('.')) - 1);
        QVERIFY2(decimals >= 4, qPrintable(exactText));
        QVERIFY(std::abs(exact - panel.result()->exact[size_t(logit)]) <= 0.5 * std::pow(10.0, -decimals) + 1e-12);
        // Uniform decimals down the column.
        for (int row = 1; row < panel.table()->rowCount(); ++row) {
            const QString text = panel.table()->cellText(row, Table::Mean);
            QCOMPARE(int(text.size() - text.indexOf(QLatin1Char('.')) - 1), decimals);
        }
        for (const char* name :
             {"reinforce", "reinforce-moving-average", "reinforce-optimal-baseline"}) {
            const double mean = cellNumber(panel, QString::fromLatin1(name), Table::Mean);
            const double stderr_ = cellNumber(panel, QString::fromLatin1(name), Table::StdErr);
            QVERIFY2(stderr_ > 0, name);
            QVERIFY2(std::abs(mean - exact) <= 4 * stderr_,
                     qPrintable(QStringLiteral("%1, logit %2: mean %3, exact %4, stderr %5")
                                    .arg(QLatin1String(name))
                                    .arg(logit)
                                    .arg(mean)
                                    .arg(exact)
                                    .arg(stderr_)));
        }
        // The histogram lines sit at the exact gradient and at the estimator's mean.
        QCOMPARE(panel.histograms()->exactLineX(0), panel.result()->exact[size_t(logit)]);
        QCOMPARE(panel.histograms()->meanLineX(0),
                 panel.result()->estimators[0].mean[size_t(logit)]);
    }
}

void TestEstimatorLabPanel::histogramsHoldEverySampleOnOneRange() {
    EstimatorLabPanel panel;
    runWith(panel, QStringLiteral("Probabilities p"), QStringLiteral("0.5, 0.3, 0.2"),
            QStringLiteral("1, 2, 5"), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kTimeoutMs);
    QCOMPARE(panel.result()->samples, 5000);
    for (int logit = 0; logit < 3; ++logit) {
        panel.logitCombo()->setCurrentIndex(logit);
        const auto* histograms = panel.histograms();
        const auto& first = histograms->chart(0)->series().front().points;
        for (int e = 0; e < histograms->chartCount(); ++e) {
            QCOMPARE(histograms->shownSamples(e), qint64(5000));
            const auto& bars = histograms->chart(e)->series().front().points;
            QCOMPARE(bars.front().x(), first.front().x());  // the same bins, so the same x range
            QCOMPARE(bars.back().x(), first.back().x());
        }
    }
}

void TestEstimatorLabPanel::badInputShowsOneLineAndKeepsThePreviousResult_data() {
    QTest::addColumn<QString>("categorical");
    QTest::addColumn<QString>("rewards");
    QTest::addColumn<QString>("temperatures");
    QTest::addColumn<QString>("expected");
    QTest::newRow("letters") << "0.5, 12abc, 0.2"
                             << "1, 2, 5"
                             << "0.1, 1"
                             << "'12abc' is not a finite number";
    QTest::newRow("nan") << "0.5, nan, 0.2"
                         << "1, 2, 5"
                         << "0.1, 1"
                         << "'nan' is not a finite number";
    QTest::newRow("sum") << "0.5, 0.3, 0.3"
                         << "1, 2, 5"
                         << "0.1, 1"
                         << "sum to 1";
    QTest::newRow("mismatch") << "0.5, 0.3, 0.2"
                              << "1, 2"
                              << "0.1, 1"
                              << "length mismatch";
    QTest::newRow("temperature") << "0.5, 0.3, 0.2"
                                 << "1, 2, 5"
                                 << "0"
                                 << "every temperature must be";
}

void TestEstimatorLabPanel::badInputShowsOneLineAndKeepsThePreviousResult() {
    QFETCH(QString, categorical);
    QFETCH(QString, rewards);
    QFETCH(QString, temperatures);
    QFETCH(QString, expected);
    EstimatorLabPanel panel;
    panel.show();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kTimeoutMs);
    const QString mean = panel.table()->cellText(1, Table::Mean);
    const auto bars = panel.histograms()->chart(0)->series().front().points;
    QVERIFY(!mean.isEmpty());

    panel.form()->categoricalEdit()->setText(categorical);
    panel.form()->rewardsEdit()->setText(rewards);
    panel.form()->temperaturesEdit()->setText(temperatures);
    panel.run();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kTimeoutMs);
    const QString error = panel.errorText();
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY(!error.contains(QLatin1Char('\n')));
    // The previous result stays: table, histograms and the stored result.
    QCOMPARE(panel.table()->cellText(1, Table::Mean), mean);
    QCOMPARE(panel.histograms()->chart(0)->series().front().points, bars);
    QCOMPARE(panel.result()->probs.size(), size_t(3));

    panel.form()->resetToDefaults();
    panel.run();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kTimeoutMs);
    QVERIFY(panel.errorText().isEmpty());
}

void TestEstimatorLabPanel::newestRequestWins() {
    EstimatorLabPanel panel;
    for (int seed = 2; seed <= 5; ++seed) {
        panel.form()->seedSpin()->setValue(seed);
        panel.run();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kTimeoutMs);
    QCOMPARE(panel.result()->seed, quint64(5));
}

QTEST_MAIN(TestEstimatorLabPanel)
#include "test_estimator_lab_panel.moc"
