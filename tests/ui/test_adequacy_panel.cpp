// The Adequacy tab on the bundled default model: a measurement drawn as risk-coverage curves,
// a target accuracy turned into a threshold and the images it flags, a flagged image opened with
// exactly the runs it was listed with and marked on the canvas, and no stale report after a
// model switch.

#include <algorithm>
#include <QDir>
#include <QPushButton>
#include <QTableWidget>
#include <QtTest>
#include <cmath>

#include "ui/attention/adequacy_mark.h"
#include "ui/attention/adequacy_panel.h"
#include "ui/attention/attention_canvas.h"
#include "ui/attention/attention_page.h"
#include "ui/attention/attention_toolbar.h"
#include "ui/attention/compare_runs_panel.h"
#include "ui/charts/series_chart.h"

using namespace saccade;
using namespace saccade::ui;

class TestAdequacyPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void measuresCurvesAndFlagsImages();
    void flaggedImageOpensWithItsRunsAndIsMarked();
    void modelSwitchForgetsTheReport();
    void cleanupTestCase() { delete m_page; }

private:
    AttentionPage* m_page = nullptr;
};

void TestAdequacyPanel::initTestCase() {
    m_page = new AttentionPage;
    m_page->resize(1280, 800);
    m_page->start(nullptr);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page));
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isBusy() && m_page->canvas()->trace().has_value(), 60'000);
}

void TestAdequacyPanel::measuresCurvesAndFlagsImages() {
    auto* panel = m_page->adequacyPanel();
    QVERIFY(!m_page->adequacyMark()->isVisible());
    m_page->toolbar()->setSeed(4);
    panel->setLimit(80);
    panel->setRuns(12);
    panel->findChild<QPushButton*>(QStringLiteral("measureButton"))->click();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->report() != nullptr, qPrintable(panel->summaryText()), 120'000);
    const AdequacyReport r = *panel->report();
    QCOMPARE(int(r.images.size()), 80);
    QCOMPARE(r.runs, 12);
    QCOMPARE(r.seed, quint64(4));  // the toolbar's seed
    QVERIFY2(panel->summaryText().contains(QStringLiteral("seeds 4..15")), qPrintable(panel->summaryText()));
    // The bundled soft model is deployed under argmax: the summary says it differs from training.
    QVERIFY2(panel->summaryText().contains(QStringLiteral("differs from the training rule (soft)")),
             qPrintable(panel->summaryText()));
    // One curve per signal and the oracle; every curve ends at full coverage at the argmax risk.
    const auto& series = panel->chart()->series();
    // The shift signals are not measured on a model with sampled runs (no --shifts): no curve.
    const auto available = std::count_if(r.curves.begin(), r.curves.end(), [](const auto& c) { return c.available; });
    QCOMPARE(int(available), kAdequacySignalCount - 2);
    QVERIFY(!r.curves[int(AdequacySignal::ShiftAgreement)].available);
    QCOMPARE(series.size(), int(available) + 1);
    for (const auto& s : series) {
        QCOMPARE(s.points.last().x(), 100.0);
        QVERIFY(std::abs(s.points.last().y() - 100 * (1 - r.accuracy)) < 1e-9);
    }
    auto* signals = panel->signalTable();
    QCOMPARE(signals->rowCount(), kAdequacySignalCount + 2);  // and the oracle and random references
    for (int row = 0; row < kAdequacySignalCount; ++row)
        if (r.curves[size_t(row)].available)
            QCOMPARE(signals->item(row, 1)->text(), QString::number(r.curves[size_t(row)].aurc, 'f', 4));
    QCOMPARE(signals->item(kAdequacySignalCount, 1)->text(), QString::number(r.oracleAurc, 'f', 4));
    QCOMPARE(signals->item(kAdequacySignalCount + 1, 1)->text(), QString::number(r.randomAurc, 'f', 4));
    // The best signal is chosen; its threshold flags exactly the images on its inadequate side.
    QCOMPARE(QString::fromLatin1(signalInfo(panel->signal()).key), QString::fromStdString(r.bestSignal));
    panel->setSignal(AdequacySignal::Agreement);
    panel->setTargetAccuracy(0.5);  // reached at full coverage: nothing is below the loosest threshold
    QVERIFY(panel->threshold().has_value());
    QCOMPARE(*panel->threshold(), r.curves[0].points.back().threshold);
    QCOMPARE(panel->flaggedTable()->rowCount(), 0);
    panel->setTargetAccuracy(1.0);
    const auto at = coverageAt(r.curves[0], 1.0);
    int expected = 0;
    for (const auto& im : r.images)
        expected += !at.threshold || isInadequate(AdequacySignal::Agreement, im.signals[AdequacySignal::Agreement], *at.threshold);
    QCOMPARE(panel->flaggedTable()->rowCount(), expected);
    QVERIFY(expected > 0);
    // Least adequate first.
    auto* flagged = panel->flaggedTable();
    for (int row = 1; row < flagged->rowCount(); ++row)
        QVERIFY(flagged->item(row - 1, 1)->text().toDouble() <= flagged->item(row, 1)->text().toDouble());
}

void TestAdequacyPanel::flaggedImageOpensWithItsRunsAndIsMarked() {
    auto* panel = m_page->adequacyPanel();
    QVERIFY(panel->report());
    const AdequacyReport r = *panel->report();
    auto* flagged = panel->flaggedTable();
    QVERIFY(flagged->rowCount() > 0);
    const qint64 index = flagged->item(0, 0)->data(Qt::UserRole).toLongLong();
    const double listed = r.images[size_t(index)].signals[AdequacySignal::Agreement];
    m_page->toolbar()->setSeed(99);  // opening the image restores the seed it was measured with
    Q_EMIT flagged->cellClicked(0, 0);
    QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(m_page->canvas()->trace()->imageId),
                              QStringLiteral("translated-fashion60:test:%1").arg(index), 30'000);
    QCOMPARE(m_page->toolbar()->seed(), quint64(4));
    // The Runs tab runs the same 12 runs: its agreement is the listed value.
    auto* runs = m_page->runsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(runs->shownSet() && !runs->isRunning(), 60'000);
    QCOMPARE(int(runs->shownSet()->runs.size()), 12);
    QCOMPARE(runs->shownSet()->seed, quint64(4));
    QCOMPARE(computeRunStats(*runs->shownSet()).agreement, listed);
    // The mark names the signal, its value and the threshold.
    auto* mark = m_page->adequacyMark();
    QTRY_VERIFY(mark->isVisible());
    QVERIFY2(mark->text().contains(QStringLiteral("Inadequate observation")), qPrintable(mark->text()));
    QVERIFY2(mark->text().contains(QStringLiteral("agreement %1").arg(listed, 0, 'f', 3)), qPrintable(mark->text()));
    QVERIFY2(mark->text().contains(QStringLiteral("seeds 4..15")), qPrintable(mark->text()));
    // A looser target: the same image is no longer flagged, and the mark goes.
    panel->setTargetAccuracy(0.5);
    QVERIFY(!mark->isVisible());
    panel->setTargetAccuracy(1.0);
    QVERIFY(mark->isVisible());
}

void TestAdequacyPanel::modelSwitchForgetsTheReport() {
    auto* panel = m_page->adequacyPanel();
    QVERIFY(panel->report());
    m_page->openModel(QDir(m_page->bundledFolder()).filePath(QStringLiteral("ram-fashion28.pt")));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() &&
                                 QString::fromStdString(m_page->canvas()->trace()->modelId).startsWith(QStringLiteral("ram/")),
                             60'000);
    QVERIFY(!panel->report());
    QCOMPARE(panel->flaggedTable()->rowCount(), 0);
    QVERIFY(panel->chart()->series().isEmpty());
    QVERIFY(!m_page->adequacyMark()->isVisible());
}

QTEST_MAIN(TestAdequacyPanel)
#include "test_adequacy_panel.moc"
