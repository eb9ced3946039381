// The room demo walked at 1280x800 as a person would: every page, every tab of every page, and
// every slide of the bundled tour, started both ways (`saccade story.tour`, and File > Start the
// default tour on a window already in use). At each stop the window's frame lies inside the
// screen's available geometry and no visible text is cut (screen_check.h); a screenshot of each
// stop is written to room-walk/ (or $SACCADE_WALK_SHOTS) for a person to look at. Waits are long
// (5 minutes): a map or a measurement on a machine loaded by other tests took 132 s once.

#include <QAction>
#include <QDir>
#include <QMenuBar>
#include <QScreen>
#include <QStandardPaths>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTabWidget>
#include <QtTest>

#include "common/samples_dir.h"
#include "data/dataset.h"
#include "ui/attention/attention_page.h"
#include "ui/attention/adequacy_panel.h"
#include "ui/attention/dataset_compare_panel.h"
#include "ui/attention/attribution_view.h"
#include "ui/main_window.h"
#include "screen_check.h"

using saccade::ui::MainWindow;

class TestRoomWalk : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyPageAndTabFitsAndShowsItsTextWhole();
    void theTourFromItsFileFitsOnEverySlide();
    void theTourFromTheMenuOnAWindowInUseFitsAndLeavesItsSize();
};

namespace {

QString shotsDir() {
    const QString dir = qEnvironmentVariable("SACCADE_WALK_SHOTS", QDir::currentPath() + QStringLiteral("/room-walk"));
    QDir().mkpath(dir);
    return dir;
}

void settle(MainWindow& window) {
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), 300'000);
    for (int pass = 0; pass < 3; ++pass) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        QTest::qWait(50);
    }
}

// The window inside the screen, its texts whole; a screenshot named for the stop.
QString look(MainWindow& window, const QString& stop) {
    settle(window);
    window.grab().save(shotsDir() + QLatin1Char('/') + stop + QStringLiteral(".png"));
    QStringList found;
    const QRect screen = window.screen()->availableGeometry();
    if (!screen.contains(window.frameGeometry()))
        found << QStringLiteral("the window's frame %1,%2 %3x%4 leaves the screen's %5x%6")
                     .arg(window.frameGeometry().x()).arg(window.frameGeometry().y())
                     .arg(window.frameGeometry().width()).arg(window.frameGeometry().height())
                     .arg(screen.width()).arg(screen.height());
    found << screen_check::problems(&window);
    return found.isEmpty() ? QString() : stop + QStringLiteral(":\n  ") + found.join(QStringLiteral("\n  "));
}

// Every tab of every tab widget shown on the current page (tabs inside tabs included, each once).
QStringList lookAtTabs(MainWindow& window, const QString& page) {
    QStringList found;
    QSet<QTabWidget*> seen;
    for (bool more = true; more;) {
        more = false;
        for (auto* tabs : window.findChildren<QTabWidget*>()) {
            if (seen.contains(tabs) || !screen_check::onScreen(tabs)) continue;
            seen.insert(tabs);
            more = true;
            const int was = tabs->currentIndex();
            for (int i = 0; i < tabs->count(); ++i) {
                tabs->setCurrentIndex(i);
                const QString tab = tabs->tabText(i).remove(QLatin1Char('&')).replace(QLatin1Char(' '), QLatin1Char('-'));
                const QString problem = look(window, page + QLatin1Char('-') + tab.toLower());
                if (!problem.isEmpty()) found << problem;
            }
            tabs->setCurrentIndex(was);
        }
    }
    return found;
}

// Each finding on its own line (QtTest cuts a long message), then one verdict.
void verdict(const QStringList& found) {
    for (const QString& f : found) qWarning().noquote() << f;
    QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("%1 stop(s) with a problem, listed above").arg(found.size())));
}

QString defaultTour() {
    return QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/tour/story.tour");
}

QStringList walkTheTour(MainWindow& window, const QString& way) {
    QStringList found;
    for (int slide = 0; slide < 7; ++slide) {
        if (slide > 0) [&] { QVERIFY(window.advanceTour(1)); }();
        const QString problem = look(window, QStringLiteral("tour-%1-slide-%2").arg(way).arg(slide + 1));
        if (!problem.isEmpty()) found << problem;
    }
    return found;
}

// The dataset comparison measured: its accuracy table's headers ("training rule?") and the
// disagreeing images' class names whole.
QStringList compareTheRules(MainWindow& window) {
    auto* panel = window.attentionPage()->comparisonPanel();
    auto* tabs = qobject_cast<QTabWidget*>(panel->parentWidget()->parentWidget());
    if (!tabs) return {QStringLiteral("the dataset comparison is not on a tab")};
    tabs->setCurrentWidget(panel);
    panel->findChild<QSpinBox*>(QStringLiteral("imageLimit"))->setValue(60);
    panel->findChild<QPushButton*>(QStringLiteral("compareButton"))->click();
    auto* table = panel->findChild<QTableWidget*>(QStringLiteral("accuracyTable"));
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(table->rowCount() > 0 &&
                                     panel->findChild<QPushButton*>(QStringLiteral("compareButton"))->isEnabled(),
                                 300'000);
    }();
    if (table->rowCount() == 0) return {QStringLiteral("the dataset comparison gave no rows")};
    const QString problem = look(window, QStringLiteral("attention-compare-measured"));
    return problem.isEmpty() ? QStringList{} : QStringList{problem};
}

}  // namespace

void TestRoomWalk::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    // The suite walks a 1280x800 screen; a person may walk another (SACCADE_WALK_ANY_SCREEN=1).
    QVERIFY2(QGuiApplication::primaryScreen()->geometry().size() == QSize(1280, 800) ||
                 qEnvironmentVariableIsSet("SACCADE_WALK_ANY_SCREEN"),
             "this walk runs on a 1280x800 screen (offscreen-1280x800.json)");
    if (!saccade::openDataset("translated-fashion60").ok()) QSKIP("the Fashion-MNIST files are not installed");
}

void TestRoomWalk::everyPageAndTabFitsAndShowsItsTextWhole() {
    MainWindow window(/*useSettings=*/false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QStringList found;
    for (const QString& page : window.pageKeys()) {
        QVERIFY(window.setCurrentPage(page));
        const QString problem = look(window, page);
        if (!problem.isEmpty()) found << problem;
        found << lookAtTabs(window, page);
        if (page == QStringLiteral("attention")) {  // the Map row with a map beside the attention, its figures whole
            auto* view = window.attentionPage()->attributionView();
            QVERIFY(view->setMethod(QStringLiteral("gradcam")));
            QTRY_VERIFY_WITH_TIMEOUT(view->map().has_value() && !view->busy(), 300'000);
            const QString problem = look(window, QStringLiteral("attention-map-gradcam"));
            if (!problem.isEmpty()) found << problem;
            QVERIFY(view->setMethod(QString()));
            // The Adequacy tab with a measurement: its risk-coverage chart's ticks whole.
            auto* adequacy = window.attentionPage()->adequacyPanel();
            auto* tabs = qobject_cast<QTabWidget*>(adequacy->parentWidget()->parentWidget());
            QVERIFY(tabs);
            tabs->setCurrentWidget(adequacy);
            adequacy->findChild<QSpinBox*>(QStringLiteral("adequacyLimit"))->setValue(20);
            adequacy->findChild<QSpinBox*>(QStringLiteral("adequacyRuns"))->setValue(4);
            adequacy->findChild<QPushButton*>(QStringLiteral("measureButton"))->click();
            auto* chart = adequacy->findChild<QChartView*>(QStringLiteral("riskCoverageChart"));
            QTRY_VERIFY_WITH_TIMEOUT(!chart->chart()->series().isEmpty() &&
                                         adequacy->findChild<QPushButton*>(QStringLiteral("measureButton"))->isEnabled(),
                                     300'000);
            const QString measured = look(window, QStringLiteral("attention-adequacy-measured"));
            if (!measured.isEmpty()) found << measured;
            found << compareTheRules(window);
        }
    }
    verdict(found);
}

void TestRoomWalk::theTourFromItsFileFitsOnEverySlide() {
    MainWindow window(/*useSettings=*/false);
    QCOMPARE(window.startTour(defaultTour()), QString());  // as `saccade story.tour`: before the first show
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QStringList found = walkTheTour(window, QStringLiteral("file"));
    verdict(found);
}

void TestRoomWalk::theTourFromTheMenuOnAWindowInUseFitsAndLeavesItsSize() {
    MainWindow window(/*useSettings=*/false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (const QString& page : {QStringLiteral("analysis"), QStringLiteral("sequences"), QStringLiteral("attention")}) {
        QVERIFY(window.setCurrentPage(page));  // a window in use: pages opened and filled
        settle(window);
    }
    const QRect before = window.frameGeometry();
    QAction* start = nullptr;
    for (auto* action : window.menuBar()->findChildren<QAction*>())
        if (action->text().remove(QLatin1Char('&')) == QStringLiteral("Start the default tour")) start = action;
    QVERIFY(start);
    start->trigger();
    QVERIFY(window.isPresenting());
    QStringList found = walkTheTour(window, QStringLiteral("menu"));
    QTest::keyClick(&window, Qt::Key_Escape);  // leaves the presentation
    QVERIFY(!window.isPresenting());
    settle(window);
    if (window.frameGeometry() != before)
        found << QStringLiteral("Esc left the window at %1x%2, not the %3x%4 it had")
                     .arg(window.frameGeometry().width()).arg(window.frameGeometry().height())
                     .arg(before.width()).arg(before.height());
    const QString after = look(window, QStringLiteral("after-the-tour"));
    if (!after.isEmpty()) found << after;
    verdict(found);
}

QTEST_MAIN(TestRoomWalk)
#include "test_room_walk.moc"
