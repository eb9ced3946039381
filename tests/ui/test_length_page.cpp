// The Length page: measures on its first visit without blocking, draws core's figure, refuses a
// request that does not fit with the reason, forgets a figure as soon as another is requested,
// cancels, and exports the four formats.
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/length/length_figure_view.h"
#include "ui/length/length_page.h"

using saccade::AttentionVariant;
using saccade::ui::LengthPage;

class TestLengthPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void measuresOnFirstShowWithoutBlocking();
    void refusesWhatDoesNotFitAndSaysWhy();
    void anotherRequestClearsTheOldFigureAndCancelStops();
    void exportsEveryFormat();

private:
    static void small(LengthPage& page, AttentionVariant variant) {
        page.select(variant, 512);
        page.findChild<QSpinBox*>(QStringLiteral("lengthWindow"))->setValue(16);
        page.findChild<QSpinBox*>(QStringLiteral("lengthDim"))->setValue(16);
    }
};

void TestLengthPage::measuresOnFirstShowWithoutBlocking() {
    LengthPage page;
    small(page, AttentionVariant::Local);
    QVERIFY(page.isBusy());  // not measured yet: a screenshot would wait
    QElapsedTimer clock;
    clock.start();
    page.resize(1100, 600);
    page.show();
    QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(page.isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy(), 90'000);
    const auto& view = page.figure()->view();
    QVERIFY(view.has_value());
    QCOMPARE(view->request.n, std::int64_t(512));
    QCOMPARE(view->request.options.window, std::int64_t(16));
    QVERIFY(view->meanTv > 0);  // a window of 16 cuts off part of the positional attention
    QVERIFY2(page.notesText().contains(QStringLiteral("keys per query")), qPrintable(page.notesText()));
    QVERIFY(page.notesText().contains(QStringLiteral("each query sees the keys within the window")));
    // What is drawn is core's figure at the widget's size.
    const QImage shot = page.figure()->grab().toImage();
    QCOMPARE(shot.size(), page.figure()->size());
    QVERIFY(shot.pixelColor(shot.width() / 2, 5) != QColor(Qt::black));
}

void TestLengthPage::refusesWhatDoesNotFitAndSaysWhy() {
    LengthPage page;
    page.select(AttentionVariant::TopK, 64);
    page.findChild<QSpinBox*>(QStringLiteral("lengthK"))->setValue(8);
    page.findChild<QSpinBox*>(QStringLiteral("lengthDim"))->setValue(16);
    QVERIFY(page.measure());
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 90'000);
    QVERIFY(page.figure()->view().has_value());
    page.findChild<QSpinBox*>(QStringLiteral("lengthK"))->setValue(100);
    QVERIFY(!page.measure());
    QVERIFY2(page.notesText().contains(QStringLiteral("k = 100 must be 1 to the key count 64")), qPrintable(page.notesText()));
    QVERIFY(!page.isRunning());
    // The k = 8 figure is not what the controls ask for now: it is gone, and Export with it.
    QVERIFY(!page.figure()->view().has_value());
    QVERIFY(page.figure()->message().contains(QStringLiteral("does not fit")));
    QCOMPARE(page.exportTo(QStringLiteral("/tmp/never.png")), QStringLiteral("nothing to export: nothing measured yet"));
}

void TestLengthPage::anotherRequestClearsTheOldFigureAndCancelStops() {
    LengthPage page;
    small(page, AttentionVariant::Linear);
    QVERIFY(page.measure());
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 90'000);
    QVERIFY(page.figure()->view().has_value());
    page.select(AttentionVariant::Full, 8192);
    QVERIFY(page.measure());
    QVERIFY(!page.figure()->view().has_value());  // the linear figure is not the request now
    auto* cancel = page.findChild<QPushButton*>(QStringLiteral("lengthCancel"));
    QVERIFY(cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 30'000);
    QVERIFY(!page.figure()->view().has_value());
    QVERIFY(page.figure()->message().startsWith(QStringLiteral("Cancelled")));
    QVERIFY(page.findChild<QPushButton*>(QStringLiteral("lengthMeasure"))->isEnabled());
}

void TestLengthPage::exportsEveryFormat() {
    LengthPage page;
    small(page, AttentionVariant::BlockSparse);
    page.findChild<QSpinBox*>(QStringLiteral("lengthBlock"))->setValue(64);
    QCOMPARE(page.exportTo(QStringLiteral("/tmp/never.png")), QStringLiteral("nothing to export: nothing measured yet"));
    QVERIFY(page.measure());
    QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 90'000);
    QTemporaryDir dir;
    for (const char* ext : {"png", "svg", "csv", "json"}) {
        const QString path = dir.filePath(QStringLiteral("length.%1").arg(QLatin1String(ext)));
        QCOMPARE(page.exportTo(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(f.size() > 100, ext);
    }
    QFile json(dir.filePath(QStringLiteral("length.json")));
    QVERIFY(json.open(QIODevice::ReadOnly));
    QVERIFY(json.readAll().contains("\"variant\": \"block_sparse\""));
    QVERIFY(page.exportTo(dir.filePath(QStringLiteral("length.gif"))).contains(QStringLiteral(".png, .svg, .csv or .json")));
}

QTEST_MAIN(TestLengthPage)
#include "test_length_page.moc"
