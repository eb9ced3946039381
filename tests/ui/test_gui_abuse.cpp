// The GUI under abuse: random clicks, keys, values and tab switches, bad files dropped on the
// window, and rapid model, rule and image changes, for SACCADE_ABUSE_SECONDS (default 15; 60 for
// the full run). Passes when nothing crashed or hung; prints the event-loop latency.
// Dialogs that a click opens are closed by a watchdog, so the run never waits for a user.

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QMimeData>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>
#include <QtTest>

#include <algorithm>
#include <vector>

#include "ui/attention/attention_page.h"
#include "ui/attention/attention_toolbar.h"
#include "ui/attention/step_info_panel.h"
#include "trace/trace.h"
#include "ui/main_window.h"

using saccade::ui::MainWindow;

namespace {

template <typename W>
QList<W*> visibleEnabled(QWidget& root) {
    QList<W*> out;
    for (W* w : root.findChildren<W*>())
        if (w->isVisible() && w->isEnabled()) out.push_back(w);
    return out;
}

// Buttons that only open a file chooser or start hour-long work are left to the other tests.
bool safeToClick(const QAbstractButton* b) {
    const QString t = b->text() + b->objectName();
    for (const char* word : {"Open", "Export", "Save", "Browse", "Choose", "…", "...", "Train", "Start"})
        if (t.contains(QString::fromUtf8(word), Qt::CaseInsensitive)) return false;
    return true;
}

}  // namespace

class TestGuiAbuse : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void survivesRandomUse();
    void classNamesShowAsTypedInRichText();
};

void TestGuiAbuse::classNamesShowAsTypedInRichText() {
    // An imported model's class names are text, not markup: "<script>" must not blank the verdict.
    using namespace saccade;
    using saccade::ui::StepInfoPanel;
    Trace t;
    t.rule = "argmax";
    t.classNames = {"cat", "<script>alert(1)</script>", "a&b"};
    TraceStep step;
    step.grid = GridDistribution{1, 1, {1.0F}};
    step.chosenCells = {0};
    t.steps = {step};
    t.output.label = 2;
    t.output.probs = {0.1F, 0.2F, 0.7F};
    GroundTruth truth;
    truth.label = 1;
    t.groundTruth = truth;
    StepInfoPanel panel;
    panel.setTrace(t, 1.0);
    const QString shown = panel.outputText();
    QVERIFY2(shown.contains(QStringLiteral("wrong: truth is &lt;script&gt;alert(1)&lt;/script&gt;")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("<b>a&amp;b</b>")), qPrintable(shown));
}

void TestGuiAbuse::survivesRandomUse() {
    QStandardPaths::setTestModeEnabled(true);
    const int seconds = qEnvironmentVariableIsSet("SACCADE_ABUSE_SECONDS")
                            ? qEnvironmentVariableIntValue("SACCADE_ABUSE_SECONDS")
                            : 15;
    QTemporaryDir dir;
    QStringList badFiles;
    const auto write = [&](const QString& name, const QByteArray& bytes) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        badFiles << f.fileName();
    };
    write(QStringLiteral("empty.pt"), QByteArray());
    write(QStringLiteral("text.pt"), QByteArray("not a checkpoint"));
    write(QStringLiteral("cut.png"), QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
    write(QStringLiteral("cut.jpg"), QByteArray("\xff\xd8\xff\xe0\0\x10JFIF", 10));
    write(QStringLiteral("huge.bmp"), QByteArray("BM\0\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0\xff\xff\0\0\xff\xff\0\0", 26));
    badFiles << dir.path() << QStringLiteral("/nonexistent/model.pt");

    MainWindow window(/*useSettings=*/false);
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString bundled = window.attentionPage()->bundledFolder();
    QStringList models;
    for (const char* m : {"patch-soft-fashion60.pt", "patch-hard-fashion60.pt", "ram-fashion28.pt",
                          "caption-soft-scenes64.pt"})
        models << bundled + QLatin1Char('/') + QLatin1String(m);

    // Event-loop latency: a 10 ms timer that records how late each tick is.
    std::vector<qint64> lateness;
    QElapsedTimer clock;
    clock.start();
    qint64 expected = 10;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        lateness.push_back(std::max<qint64>(0, clock.elapsed() - expected));
        expected = clock.elapsed() + 10;
    });
    ticker.start(10);
    // Any dialog a click opened is dismissed.
    QTimer watchdog;
    QObject::connect(&watchdog, &QTimer::timeout, [] {
        if (auto* modal = qobject_cast<QDialog*>(QApplication::activeModalWidget())) modal->reject();
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* d = qobject_cast<QDialog*>(w); d && d->isVisible()) d->reject();
    });
    watchdog.start(50);

    QRandomGenerator generator(18);  // the same actions on every run
    auto* rng = &generator;
    const QStringList pages = window.pageKeys();
    int actions = 0;
    QElapsedTimer run;
    run.start();
    while (run.elapsed() < seconds * 1000) {
        switch (rng->bounded(9)) {
            case 0:
                window.setCurrentPage(pages[rng->bounded(pages.size())]);
                break;
            case 1: {
                auto boxes = visibleEnabled<QComboBox>(window);
                if (!boxes.isEmpty()) {
                    auto* box = boxes[rng->bounded(boxes.size())];
                    if (box->count() > 0) box->setCurrentIndex(rng->bounded(box->count()));
                }
                break;
            }
            case 2: {
                auto spins = visibleEnabled<QSpinBox>(window);
                if (!spins.isEmpty()) {
                    auto* spin = spins[rng->bounded(spins.size())];
                    const int pick = rng->bounded(3);
                    spin->setValue(pick == 0 ? spin->minimum() : pick == 1 ? spin->maximum()
                                                                           : spin->minimum() + rng->bounded(std::max(1, spin->maximum() - spin->minimum())));
                }
                break;
            }
            case 3: {
                QList<QAbstractButton*> buttons;
                for (auto* b : visibleEnabled<QAbstractButton>(window))
                    if (safeToClick(b) && (qobject_cast<QPushButton*>(b) || qobject_cast<QCheckBox*>(b))) buttons << b;
                if (!buttons.isEmpty()) {
                    auto* b = buttons[rng->bounded(buttons.size())];
                    if (qEnvironmentVariableIsSet("SACCADE_ABUSE_VERBOSE"))
                        qInfo("click %s (%s)", qPrintable(b->text()), qPrintable(b->objectName()));
                    b->click();
                }
                break;
            }
            case 4: {
                auto tabs = visibleEnabled<QTabWidget>(window);
                if (!tabs.isEmpty()) {
                    auto* t = tabs[rng->bounded(tabs.size())];
                    if (t->count() > 0) t->setCurrentIndex(rng->bounded(t->count()));
                }
                break;
            }
            case 5: {
                QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : &window;
                static const int keys[] = {Qt::Key_Left, Qt::Key_Right, Qt::Key_Up, Qt::Key_Down, Qt::Key_Space,
                                           Qt::Key_Tab, Qt::Key_Home, Qt::Key_End, Qt::Key_PageDown, Qt::Key_Delete,
                                           Qt::Key_A, Qt::Key_1};
                QTest::keyClick(target, Qt::Key(keys[rng->bounded(int(std::size(keys)))]));
                break;
            }
            case 6: {
                // A bad file dropped on the window, as a user drags one in.
                QMimeData mime;
                mime.setUrls({QUrl::fromLocalFile(badFiles[rng->bounded(badFiles.size())])});
                QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
                QApplication::sendEvent(&window, &drop);
                break;
            }
            case 7:
                window.attentionPage()->openModel(models[rng->bounded(models.size())]);
                break;
            case 8: {
                auto* toolbar = window.attentionPage()->findChild<saccade::ui::AttentionToolbar*>();
                if (toolbar) {
                    toolbar->setSeed(rng->bounded(1000));
                    toolbar->setRule(QStringList{QStringLiteral("argmax"), QStringLiteral("sample"), QStringLiteral("soft"),
                                                 QStringLiteral("mean"), QStringLiteral("gumbel:0.5")}[rng->bounded(5)]);
                }
                break;
            }
        }
        ++actions;
        QTest::qWait(rng->bounded(2) == 0 ? 0 : 15);
    }
    // Still responsive: the attention page settles and draws a trace of a bundled model.
    window.setCurrentPage(QStringLiteral("attention"));
    window.attentionPage()->openModel(models[0]);
    QElapsedTimer settle;
    settle.start();
    QTRY_VERIFY_WITH_TIMEOUT(!window.attentionPage()->isBusy(), 120'000);
    ticker.stop();
    std::sort(lateness.begin(), lateness.end());
    QVERIFY(!lateness.empty());
    const qint64 p50 = lateness[lateness.size() / 2], p99 = lateness[lateness.size() * 99 / 100], worst = lateness.back();
    qInfo("settled in %lld ms", settle.elapsed());
    qInfo("%d actions in %d s; event-loop lateness of a 10 ms timer: median %lld ms, p99 %lld ms, worst %lld ms",
          actions, seconds, p50, p99, worst);
}

QTEST_MAIN(TestGuiAbuse)
#include "test_gui_abuse.moc"
