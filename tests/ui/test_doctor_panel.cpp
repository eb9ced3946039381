// The doctor page: runs off the GUI thread, then shows the report with the Qt version.

#include <QElapsedTimer>
#include <QLabel>
#include <QPushButton>
#include <QtTest>

#include "ui/doctor/doctor_panel.h"

using saccade::ui::DoctorPanel;

class TestDoctorPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void runsWhenShownWithoutBlocking();
    void runAgain();
};

void TestDoctorPanel::runsWhenShownWithoutBlocking() {
    DoctorPanel panel;
    QVERIFY(!panel.hasFinished());
    QElapsedTimer clock;
    clock.start();
    panel.show();  // starts the run
    // show() returns at once: the matrix product runs on a worker.
    QVERIFY2(clock.elapsed() < 500, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(panel.isRunning());
    QVERIFY(!panel.findChild<QPushButton*>(QStringLiteral("runAgainButton"))->isEnabled());

    QTRY_VERIFY_WITH_TIMEOUT(panel.hasFinished(), 90'000);
    const QString report = panel.reportText();
    QVERIFY2(report.contains(QStringLiteral("GFLOP/s")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("Qt %1").arg(QString::fromLatin1(qVersion()))),
             qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("LibTorch")), qPrintable(report));
    QVERIFY(panel.summaryText().contains(QStringLiteral("GFLOP/s")));
    QVERIFY(panel.findChild<QPushButton*>(QStringLiteral("runAgainButton"))->isEnabled());
    QVERIFY(!panel.findChild<QLabel*>(QStringLiteral("warningsLabel"))->text().isEmpty());
}

void TestDoctorPanel::runAgain() {
    DoctorPanel panel;
    panel.run();
    QTRY_VERIFY_WITH_TIMEOUT(panel.hasFinished(), 90'000);
    QSignalSpy finished(&panel, &DoctorPanel::finished);
    QTest::mouseClick(panel.findChild<QPushButton*>(QStringLiteral("runAgainButton")),
                      Qt::LeftButton);
    QVERIFY(panel.isRunning());
    QVERIFY(finished.wait(90'000));
    QCOMPARE(finished.count(), 1);
    QVERIFY(panel.reportText().contains(QStringLiteral("GFLOP/s")));
}

QTEST_MAIN(TestDoctorPanel)
#include "test_doctor_panel.moc"
