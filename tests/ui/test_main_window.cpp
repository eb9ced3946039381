// The main window: its pages, a real grab, and settings that survive a restart.

#include <QDoubleSpinBox>
#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QSplitter>
#include <QLayout>
#include <QProgressDialog>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QChart>
#include <QAbstractAxis>
#include <QtTest>

#include "ui/analysis/analysis_page.h"
#include "ui/attention/attention_canvas.h"
#include "ui/attention/attention_page.h"
#include "ui/attention/attention_toolbar.h"
#include "ui/doctor/doctor_panel.h"
#include "ui/file_dialogs.h"
#include "ui/main_window.h"
#include "ui/report_export.h"
#include "ui/report_pdf.h"
#include "common/samples_dir.h"
#include "data/dataset.h"
#include "io/checkpoint.h"
#include "io/session.h"
#include "ui/attention/step_scrubber.h"
#include "ui/attention/step_info_panel.h"
#include "ui/charts/class_prob_chart.h"
#include "trace/trace.h"
#include "ui/labs/scalar_lab_form.h"
#include "ui/labs/scalar_lab_panel.h"
#include "ui/labs/scalar_lab_result_view.h"

using saccade::ui::MainWindow;
using Field = saccade::ui::ScalarLabResultView::Field;

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void pages();
    void grabHasTheWindowSize_data();
    void grabHasTheWindowSize();
    void settingsPersist();
    void attentionSettingsPersist();
    void shortcutsAndTooltips();
    void layoutHoldsStillWhenTheRuleOrTabChanges();
    void exportReportWritesTheHtmlOffTheGuiThread();
    void sessionReopensTheSameTraceAndReportsAChangedModel();
    void sessionErrorsAndRulesItCannotApplyShowInTheBanner();
    void theDefaultTourPresentsEachSlideWithItsNotes();
    void presentationFitsA1280x800ScreenAndLeavesNoTrace();
    void fileDialogsStartInTheLastFolder();
};

QSize qSmartMinSize(const QWidget* w);  // QtWidgets' own measure of what a layout gives a widget at least

namespace {

// The deepest widgets whose minimum is wider or taller than `limit`: what keeps a window too large.
QStringList tooLarge(QWidget* root, QSize limit) {
    QStringList found;
    for (auto* child : root->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
        if (child->isWindow()) continue;
        const QSize m = child->minimumSizeHint().expandedTo(child->minimumSize());
        if (m.width() <= limit.width() && m.height() <= limit.height()) continue;
        const QStringList deeper = tooLarge(child, limit);
        if (!deeper.isEmpty()) {
            found << deeper;
            continue;
        }
        QStringList parts;  // what it holds side by side or stacked
        for (auto* part : child->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (!part->isWindow() && !part->isHidden())
                parts << QStringLiteral("%1 %2 %3x%4")
                             .arg(QString::fromLatin1(part->metaObject()->className()), part->objectName())
                             .arg(qSmartMinSize(part).width())
                             .arg(qSmartMinSize(part).height());
        found << QStringLiteral("%1 %2 (%3x%4: %5)")
                     .arg(QString::fromLatin1(child->metaObject()->className()), child->objectName())
                     .arg(m.width())
                     .arg(m.height())
                     .arg(parts.join(QStringLiteral("; ")));
    }
    return found;
}

}  // namespace

void TestMainWindow::initTestCase() {
    // Keep the user's real settings out of the tests.
    QStandardPaths::setTestModeEnabled(true);
    QSettings(QStringLiteral("Saccade"), QStringLiteral("saccade")).clear();
}

void TestMainWindow::pages() {
    MainWindow window(/*useSettings=*/false);
    QCOMPARE(window.windowTitle(), QStringLiteral("Saccade"));
    QCOMPARE(window.pageKeys(), (QStringList{QStringLiteral("attention"), QStringLiteral("analysis"),
                                             QStringLiteral("sequences"), QStringLiteral("length"), QStringLiteral("atlas"), QStringLiteral("training"),
                                             QStringLiteral("scalar"),
                                             QStringLiteral("estimators"), QStringLiteral("doctor")}));
    QCOMPARE(window.currentPage(), QStringLiteral("attention"));
    QVERIFY(window.attentionPage() != nullptr);
    QVERIFY(window.scalarLabPanel() != nullptr);
    QVERIFY(window.estimatorLabPanel() != nullptr);
    QVERIFY(window.doctorPanel() != nullptr);
    QVERIFY(window.sequencesPage() != nullptr);
    QVERIFY(window.lengthPage() != nullptr);
    QVERIFY(!window.setCurrentPage(QStringLiteral("nonsense")));
    QCOMPARE(window.currentPage(), QStringLiteral("attention"));
    QVERIFY(window.setCurrentPage(QStringLiteral("doctor")));
    QCOMPARE(window.currentPage(), QStringLiteral("doctor"));
    QCOMPARE(window.size(), QSize(1280, 800));
    // The first page already shows the worked example, and says so in the status bar.
    QCOMPARE(window.scalarLabPanel()->resultView()->text(Field::FSoft), QStringLiteral("23.04"));
    QVERIFY(window.statusBar() != nullptr);
}

void TestMainWindow::grabHasTheWindowSize_data() {
    QTest::addColumn<QString>("page");
    QTest::newRow("attention") << "attention";
    QTest::newRow("scalar lab") << "scalar";
    QTest::newRow("estimator lab") << "estimators";
    QTest::newRow("doctor") << "doctor";
    QTest::newRow("probes and cost") << "analysis";
}

void TestMainWindow::grabHasTheWindowSize() {
    QFETCH(QString, page);
    MainWindow window(/*useSettings=*/false);
    QVERIFY(window.setCurrentPage(page));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), 60'000);
    const QPixmap pixmap = window.grab();
    QVERIFY(!pixmap.isNull());
    QCOMPARE(pixmap.deviceIndependentSize().toSize(), window.size());
    // Not a blank image: a drawn window has many colours.
    const QImage image = pixmap.toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
    if (page == QStringLiteral("scalar"))
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("32.8")));
}

void TestMainWindow::settingsPersist() {
    {
        MainWindow window(/*useSettings=*/true);
        window.scalarLabPanel()->form()->valuesEdit()->setText(QStringLiteral("1, 3, 5"));
        window.scalarLabPanel()->form()->uSpin()->setValue(0.25);
        // The window fits a 1280-pixel-wide screen.
        QVERIFY2(window.minimumSizeHint().width() <= 1180,
                 qPrintable(QString::number(window.minimumSizeHint().width())));
        window.resize(1180, 700);
        QVERIFY(window.setCurrentPage(QStringLiteral("doctor")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.close());
    }
    MainWindow restored(/*useSettings=*/true);
    QCOMPARE(restored.currentPage(), QStringLiteral("doctor"));
    QCOMPARE(restored.scalarLabPanel()->form()->valuesEdit()->text(), QStringLiteral("1, 3, 5"));
    QCOMPARE(restored.scalarLabPanel()->form()->uSpin()->value(), 0.25);
    QCOMPARE(restored.size(), QSize(1180, 700));
    // 0.5*1 + 0.3*3 + 0.2*5 = 2.4
    QCOMPARE(restored.scalarLabPanel()->resultView()->text(Field::SoftContext),
             QStringLiteral("2.4"));
    QSettings(QStringLiteral("Saccade"), QStringLiteral("saccade")).clear();
}

void TestMainWindow::attentionSettingsPersist() {
    {
        MainWindow window(/*useSettings=*/true);
        auto* page = window.attentionPage();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy(), 60'000);
        page->toolbar()->setSeed(5);
        QVERIFY(page->setRule(QStringLiteral("sample")));
        saccade::ui::OverlaySettings o;
        o.grid = true;
        o.heatmapOpacity = 0.3;
        page->toolbar()->setOverlays(o);
        page->openSample(QStringLiteral("translated-fashion60"), 3);
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(page->canvas()->trace()->imageId),
                                  QStringLiteral("translated-fashion60:test:3"), 60'000);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy(), 60'000);
        QVERIFY(window.close());
    }
    MainWindow restored(/*useSettings=*/true);
    auto* page = restored.attentionPage();
    QCOMPARE(page->toolbar()->rule(), QStringLiteral("sample"));
    QCOMPARE(page->toolbar()->seed(), 5u);
    QVERIFY(page->toolbar()->overlays().grid);
    QCOMPARE(page->toolbar()->overlays().heatmapOpacity, 0.3);
    QTRY_VERIFY_WITH_TIMEOUT(page->canvas()->trace().has_value() && !page->isBusy(), 60'000);
    const auto& trace = *page->canvas()->trace();
    QCOMPARE(QString::fromStdString(trace.imageId), QStringLiteral("translated-fashion60:test:3"));
    QCOMPARE(QString::fromStdString(trace.rule), QStringLiteral("sample"));
    QCOMPARE(trace.seed, 5u);
    QSettings(QStringLiteral("Saccade"), QStringLiteral("saccade")).clear();
}

void TestMainWindow::exportReportWritesTheHtmlOffTheGuiThread() {
    if (!saccade::openDataset("translated-fashion60").ok()) QSKIP("the Fashion-MNIST files are not installed");
    MainWindow window(/*useSettings=*/false);
    QTemporaryDir dir;
    saccade::ReportOptions options;
    options.modelPath = saccade::findSamplesDir() + "/models/patch-soft-fashion60.pt";
    options.limit = 30;
    options.runs = 10;
    options.sweepRuns = 0;
    options.faithfulnessImages = 8;
    options.costRepeats = 1;
    const QString path = dir.filePath(QStringLiteral("report.html"));
    QSignalSpy finished(window.reportExporter(), &saccade::ui::ReportExporter::finished);
    QVERIFY(window.reportExporter()->start(options, path));
    QVERIFY(window.reportExporter()->isRunning());
    QVERIFY(!window.reportExporter()->start(options, path));  // one at a time
    QVERIFY(finished.wait(120'000));
    QCOMPARE(finished.first().at(0).toString(), path);
    QCOMPARE(finished.first().at(1).toString(), QString());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray html = file.readAll();
    QVERIFY(html.startsWith("<!DOCTYPE html>"));
    QVERIFY(html.contains("Accuracy per rule"));
    QVERIFY(html.contains("<td>argmax</td><td>"));
    QVERIFY(html.contains("/ 30</td>"));
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("Wrote the report")));
    auto* dialog = window.findChild<QProgressDialog*>(QStringLiteral("reportProgress"));
    QVERIFY(dialog);
    QVERIFY(dialog->isHidden());  // gone once the report is written
    // The same report as PDF through Qt: its SVG and PNG figures drawn in.
    const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
    QCOMPARE(saccade::ui::writeReportPdf(QString::fromUtf8(html), pdf), QString());
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const QByteArray pdfBytes = pdfFile.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY2(pdfBytes.size() > 30'000, QByteArray::number(pdfBytes.size()));  // figures, not only text
    QVERIFY(pdfBytes.count("/Subtype /Image") + pdfBytes.count("/Subtype/Image") >= 3);
    // A figure that is not SVG is an error, and no file is left behind.
    QCOMPARE(saccade::ui::writeReportPdf(QStringLiteral("<p><svg><rect width=</svg></p>"), dir.filePath(QStringLiteral("x.pdf"))),
             QStringLiteral("a figure of the report is not valid SVG"));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x.pdf"))));
}

void TestMainWindow::sessionReopensTheSameTraceAndReportsAChangedModel() {
    if (!saccade::openDataset("translated-fashion60").ok()) QSKIP("the Fashion-MNIST files are not installed");
    QTemporaryDir dir;
    // The session's model is a copy, so that the test can change and remove it afterwards.
    const QString model = dir.filePath(QStringLiteral("hard.pt"));
    const QString bundled = QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/models/patch-hard-fashion60");
    QVERIFY(QFile::copy(bundled + QStringLiteral(".pt"), model));
    QVERIFY(QFile::copy(bundled + QStringLiteral(".json"), dir.filePath(QStringLiteral("hard.json"))));
    std::string saved;
    {
        MainWindow window(/*useSettings=*/false);
        auto* page = window.attentionPage();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value(), 60'000);
        page->openModel(model);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value() &&
                                     page->canvas()->trace()->modelId == "patch/hard/translated-fashion60", 60'000);
        page->toolbar()->setSeed(7);
        QVERIFY(page->setRule(QStringLiteral("sample")));
        page->openSample(QStringLiteral("translated-fashion60"), 12);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace()->imageId == "translated-fashion60:test:12" &&
                                     page->canvas()->trace()->seed == 7 && page->canvas()->trace()->rule == "sample",
                                 60'000);
        page->scrubber()->setCurrentStep(2);
        window.setSessionNotes(QStringLiteral("A sneaker the hard model calls a bag."));
        QCOMPARE(window.saveSessionFile(dir.filePath(QStringLiteral("demo.saccade"))), QString());
        saved = saccade::traceToJson(*page->canvas()->trace());
        // A probe (a sweep's moved object) is neither a sample nor a file: refused, saying why; nothing written.
        auto data = saccade::openDataset("translated-fashion60");
        QVERIFY(data.ok());
        const saccade::Sample probe = (*data)->sample(saccade::Split::Test, 3);
        saccade::GroundTruth truth;
        truth.label = probe.label;
        truth.boxes = {probe.box};
        page->openProbe(probe.image, QStringLiteral("probe: shift +4"), truth, 2, 1);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace()->imageId == "probe: shift +4", 60'000);
        const QString why = window.saveSessionFile(dir.filePath(QStringLiteral("probe.saccade")));
        QVERIFY2(why.contains(QStringLiteral("probe")) && why.contains(QStringLiteral("probe: shift +4")), qPrintable(why));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("probe.saccade"))));
    }
    MainWindow window(/*useSettings=*/false);
    auto* page = window.attentionPage();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value(), 60'000);  // the bundled default
    window.setCurrentPage(MainWindow::kDoctorPage);
    QCOMPARE(window.openSessionFile(dir.filePath(QStringLiteral("demo.saccade"))), QString());
    QCOMPARE(window.currentPage(), QStringLiteral("attention"));
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value() &&
                                 page->canvas()->trace()->imageId == "translated-fashion60:test:12", 60'000);
    QCOMPARE(saccade::traceToJson(*page->canvas()->trace()), saved);  // the same numbers
    QCOMPARE(page->scrubber()->currentStep(), 2);
    QCOMPARE(page->toolbar()->seed(), quint64(7));
    QCOMPARE(window.sessionNotes(), QStringLiteral("A sneaker the hard model calls a bag."));
    QCOMPARE(window.notesBand()->text(), QStringLiteral("A sneaker the hard model calls a bag."));
    QVERIFY(!window.notesBand()->isHidden());
    QCOMPARE(window.recentSessions().size(), 1);
    // A changed model is reported, not opened; so is a removed one.
    {
        QFile f(model);
        QVERIFY(f.open(QIODevice::Append));
        f.write("x");
    }
    QVERIFY(window.openSessionFile(dir.filePath(QStringLiteral("demo.saccade"))).contains(QStringLiteral("changed since")));
    QVERIFY(QFile::remove(model));
    QVERIFY(window.openSessionFile(dir.filePath(QStringLiteral("demo.saccade"))).contains(QStringLiteral("moved or deleted")));
    QCOMPARE(saccade::traceToJson(*page->canvas()->trace()), saved);  // nothing was replaced
}

void TestMainWindow::sessionErrorsAndRulesItCannotApplyShowInTheBanner() {
    if (!saccade::openDataset("translated-fashion60").ok()) QSKIP("the Fashion-MNIST files are not installed");
    QTemporaryDir dir;
    MainWindow window(/*useSettings=*/false);
    auto* page = window.attentionPage();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value(), 60'000);
    // Malformed JSON: refused, and said where the user looks (before the window shows, too).
    QFile bad(dir.filePath(QStringLiteral("bad.saccade")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{bad");
    bad.close();
    QVERIFY(window.openSessionFile(bad.fileName()).contains(QStringLiteral("not JSON")));
    QVERIFY(!page->errorBanner()->isHidden());
    QVERIFY(page->errorBanner()->text().contains(QStringLiteral("Session not opened")));
    // A rule the toolbar cannot give exactly is reported, not clamped or replaced.
    const QString model = QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/models/patch-soft-fashion60.pt");
    const auto crc = saccade::fileCrc32(model.toStdString());
    QVERIFY(crc.ok());
    for (const QString rule : {QStringLiteral("ksample:1000000000"), QStringLiteral("bogus"), QStringLiteral("argmax:3")}) {
        page->errorBanner()->hide();
        const QString path = dir.filePath(QStringLiteral("rule.saccade"));
        saccade::Session session;
        session.modelPath = model.toStdString();
        session.modelCrc32 = *crc;
        session.dataset = "translated-fashion60";
        session.sampleIndex = 3;
        session.rule = rule.toStdString();
        session.page = "attention";
        QVERIFY(saccade::saveSession(session, path.toStdString()).ok());
        QCOMPARE(window.openSessionFile(path), QString());
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value() &&
                                     page->canvas()->trace()->imageId == "translated-fashion60:test:3", 60'000);
        QVERIFY2(!page->errorBanner()->isHidden(), qPrintable(rule));
        QVERIFY2(page->errorBanner()->text().contains(QStringLiteral("Session rule not applied")) &&
                     page->errorBanner()->text().contains(rule),
                 qPrintable(page->errorBanner()->text()));
        QVERIFY(page->toolbar()->rule() != rule);
        page->openSample(QStringLiteral("translated-fashion60"), 0);  // the next session's image differs
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace()->imageId == "translated-fashion60:test:0", 60'000);
    }
}

void TestMainWindow::theDefaultTourPresentsEachSlideWithItsNotes() {
    if (!saccade::openDataset("translated-fashion60").ok()) QSKIP("the Fashion-MNIST files are not installed");
    MainWindow window(/*useSettings=*/false);
    auto* page = window.attentionPage();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value(), 60'000);
    const QFont normal = window.font();
    const QString tour = QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/tour/story.tour");
    QCOMPARE(window.startTour(tour), QString());
    QVERIFY(window.isPresenting());
    QCOMPARE(page->canvas()->lineScale(), 2.0);
    QVERIFY(window.font().pointSizeF() > normal.pointSizeF());
    QCOMPARE(window.tourPosition(), 0);
    QCOMPARE(window.currentPage(), QStringLiteral("scalar"));
    QVERIFY(window.notesBand()->text().startsWith(QStringLiteral("Soft and hard attention on three numbers")));
    QVERIFY(!window.advanceTour(-1));  // no slide before the first
    // Each slide's words agree with what its model does (issue 52 item 3: the soft slide's model
    // used to call its "sneaker" a sandal, which undid the hard slide's point).
    QVERIFY(window.advanceTour(1));
    QCOMPARE(window.currentPage(), QStringLiteral("attention"));
    QVERIFY(window.notesBand()->text().contains(QStringLiteral("the soft model calls it a bag (p = 0.98), rightly")));
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value() &&
                                 page->canvas()->trace()->rule == "soft" &&
                                 page->canvas()->trace()->imageId == "translated-fashion60:test:53", 60'000);
    {
        const auto& soft = *page->canvas()->trace();
        QCOMPARE(QString::fromStdString(soft.output.text), QStringLiteral("Bag"));
        QCOMPARE(soft.output.label, soft.groundTruth->label);
        QCOMPARE(QString::number(soft.output.probs[size_t(soft.output.label)], 'f', 2), QStringLiteral("0.98"));
        QVERIFY(soft.steps[0].chosenCells.empty());  // nothing selected
    }
    QVERIFY(window.advanceTour(1));
    QVERIFY(window.notesBand()->text().startsWith(QStringLiteral("Hard attention, seed 3")));
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value() &&
                                 page->canvas()->trace()->seed == 3 && page->canvas()->trace()->rule == "sample" &&
                                 page->canvas()->trace()->imageId == "translated-fashion60:test:53", 60'000);
    {
        const auto& hard = *page->canvas()->trace();
        QCOMPARE(QString::fromStdString(hard.output.text), QStringLiteral("Shirt"));  // as the notes say
        QCOMPARE(QString::number(hard.output.probs[size_t(hard.output.label)], 'f', 2), QStringLiteral("0.67"));
        QStringList cells;  // "(4,2), (4,3), ..." as the notes name them
        for (const auto& step : hard.steps)
            cells << QStringLiteral("(%1,%2)").arg(step.chosenCells.at(0) / step.grid->cols).arg(step.chosenCells.at(0) % step.grid->cols);
        QVERIFY2(window.notesBand()->text().contains(cells.join(QStringLiteral(", "))), qPrintable(cells.join(QStringLiteral(", "))));
    }
    QVERIFY(window.advanceTour(1));  // slide 4 starts its 1,000 runs by itself
    auto* summary = page->findChild<QLabel*>(QStringLiteral("runsSummary"));
    QVERIFY(summary);
    QTRY_VERIFY_WITH_TIMEOUT(summary->text().contains(QStringLiteral("1000 runs</b>, seeds 1–1000")), 60'000);
    // Slide 3's "under argmax it says bag, as 92.8% of 1,000 seeded runs do".
    QVERIFY2(summary->text().contains(QStringLiteral("argmax: Bag")) && summary->text().contains(QStringLiteral("right: <b>92.8%</b>")),
             qPrintable(summary->text()));
    QVERIFY(window.advanceTour(2));  // slide 6: the Cost tab
    auto* tabs = window.analysisPage()->tabs();
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("Cost"));
    QVERIFY(window.advanceTour(-1));  // back to slide 5, which names no tab: its page's first, the sweep it speaks of
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("Boundary sweep"));
    QVERIFY(window.advanceTour(2));
    QVERIFY(!window.advanceTour(1));  // the last slide
    QVERIFY(window.recentSessions().isEmpty());  // a tour's slides are not recent sessions
    window.setPresentationMode(false);
    QVERIFY(!window.isPresenting());
    QVERIFY(!window.advanceTour(1));  // leaving ended the tour
    QCOMPARE(page->canvas()->lineScale(), 1.0);
    QCOMPARE(window.font(), normal);
    QVERIFY(!window.startTour(QStringLiteral("/nonexistent/x.tour")).isEmpty());
}

void TestMainWindow::presentationFitsA1280x800ScreenAndLeavesNoTrace() {
    if (!saccade::openDataset("translated-fashion60").ok()) QSKIP("the Fashion-MNIST files are not installed");
    MainWindow window(/*useSettings=*/false);
    const QSize screen(1280, 800), before = window.size();
    const QFont normal = window.font();
    QHash<QWidget*, qreal> typeBefore;  // what each widget's own type was before presenting
    for (auto* child : window.findChildren<QWidget*>()) typeBefore[child] = child->font().pointSizeF();
    // As `saccade story.tour` does: the tour starts before the window is first shown.
    QCOMPARE(window.startTour(QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/tour/story.tour")),
             QString());
    window.show();
    auto fits = [&](const QString& where) {
        // The window's minimum (sidebar, notes and page together) must fit the screen, with room
        // to spare for another Qt release's style (Qt 6.8's margins made it 6 px wider than 6.4's).
        // Measured once every posted event (new type, new text) has been handled and every layout
        // recomputed, so the verdict does not depend on what had been laid out when it looked.
        constexpr int kHeadroom = 24;
        for (int pass = 0; pass < 3; ++pass) {
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents();
            for (auto* w : window.findChildren<QWidget*>())
                if (w->layout()) w->layout()->activate();
            if (window.layout()) window.layout()->activate();
        }
        const QSize need = window.minimumSizeHint().expandedTo(window.minimumSize());
        return need.width() <= screen.width() - kHeadroom && need.height() <= screen.height() - kHeadroom
                   ? QString()
                   : QStringLiteral("%1 needs %2x%3 presenting: %4")
                         .arg(where).arg(need.width()).arg(need.height())
                         .arg(tooLarge(&window, QSize(screen.width() - 160, screen.height() - 140)).join(QStringLiteral(", ")));
    };
    for (int slide = 0; slide < 7; ++slide) {
        if (slide > 0) QVERIFY(window.advanceTour(1));
        QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), 60'000);
        QTest::qWait(200);
        QCOMPARE(window.slideCounterText(), QStringLiteral("Slide %1 of 7").arg(slide + 1));
        if (slide == 5) {  // the cost slide opens the Cost tab
            QCOMPARE(window.currentPage(), QStringLiteral("analysis"));
            QCOMPARE(window.analysisPage()->tabs()->tabText(window.analysisPage()->tabs()->currentIndex()),
                     QStringLiteral("Cost"));
        }
        const QString problem = fits(QStringLiteral("slide %1 (%2)").arg(slide + 1).arg(window.currentPage()));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
    for (const QString& key : window.pageKeys()) {
        QVERIFY(window.setCurrentPage(key));
        const QString problem = fits(key);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
    window.setPresentationMode(false);
    QCOMPARE(window.font(), normal);
    QCOMPARE(window.slideCounterText(), QString());
    QVERIFY(window.notesBand()->isHidden());  // the last slide's caption left with the tour
    QTRY_COMPARE(window.size(), before);  // back to the size it had, not the screen's
    for (auto* child : window.findChildren<QWidget*>())  // no widget keeps the large type (the caption's words: new)
        QVERIFY2(typeBefore.contains(child) ? child->font().pointSizeF() == typeBefore[child]
                                            : child->font().pointSizeF() <= normal.pointSizeF() * 1.2,
                 qPrintable(QStringLiteral("%1 %2 keeps %3 pt")
                                .arg(QString::fromLatin1(child->metaObject()->className()), child->objectName())
                                .arg(child->font().pointSizeF())));
}

void TestMainWindow::fileDialogsStartInTheLastFolder() {
    using namespace saccade::ui;
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("shots")));
    const QString shots = dir.filePath(QStringLiteral("shots"));
    rememberDialogFolder(shots + QStringLiteral("/view.png"));  // a file chosen there
    QCOMPARE(lastDialogFolder(), shots);
    QCOMPARE(dialogStart(), shots);
    QCOMPARE(dialogStart(QStringLiteral("report.html")), shots + QStringLiteral("/report.html"));
    QCOMPARE(dialogStart(QStringLiteral("/elsewhere/m.pt")), QStringLiteral("/elsewhere/m.pt"));  // a path as given
    rememberDialogFolder(dir.path());  // a folder chosen itself
    QCOMPARE(lastDialogFolder(), dir.path());
    {
        MainWindow window(/*useSettings=*/true);
        rememberDialogFolder(shots);
        window.close();  // saves the settings
    }
    rememberDialogFolder(dir.path());
    {
        MainWindow window(/*useSettings=*/true);  // the next run starts where the last one was
        QCOMPARE(lastDialogFolder(), shots);
    }
    rememberDialogFolder(dir.filePath(QStringLiteral("gone/x.png")));  // a folder that is gone: home
    QCOMPARE(lastDialogFolder(), QDir::homePath());
}

QTEST_MAIN(TestMainWindow)
void TestMainWindow::shortcutsAndTooltips() {
    MainWindow window(/*useSettings=*/false);
    QStringList keys;
    for (QAction* a : window.findChildren<QAction*>())
        if (!a->shortcut().isEmpty()) keys << a->shortcut().toString();
    for (const QString& wanted : {QStringLiteral("Ctrl+O"), QStringLiteral("Ctrl+Shift+O"), QStringLiteral("Ctrl+S"),
                                  QStringLiteral("Ctrl+R"), QStringLiteral("Ctrl+Q"), QStringLiteral("F1")})
        QVERIFY2(keys.contains(wanted), qPrintable(wanted + QStringLiteral(" missing from ") + keys.join(QLatin1Char(' '))));
    auto* list = window.findChild<QListWidget*>(QStringLiteral("pageList"));
    QVERIFY(list);
    for (int i = 0; i < list->count(); ++i) QVERIFY2(!list->item(i)->toolTip().isEmpty(), qPrintable(list->item(i)->text()));
    for (const char* name : {"seedSpin", "exportButton"}) {
        auto* w = window.findChild<QWidget*>(QLatin1String(name));
        QVERIFY2(w && !w->toolTip().isEmpty(), name);
    }
}

void TestMainWindow::layoutHoldsStillWhenTheRuleOrTabChanges() {
    MainWindow window(/*useSettings=*/false);
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* page = window.attentionPage();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace().has_value(), 60'000);
    auto* splitter = page->findChild<QSplitter*>();
    auto* tabs = page->findChild<QTabWidget*>();
    QVERIFY(splitter && tabs);
    QTest::qWait(50);
    const QList<int> sizes = splitter->sizes();
    const int toolbar = page->toolbar()->width(), canvas = page->canvas()->width();
    auto same = [&](const QString& what) {
        QTest::qWait(30);
        QVERIFY2(splitter->sizes() == sizes, qPrintable(what));
        QCOMPARE(page->toolbar()->width(), toolbar);
        QCOMPARE(page->canvas()->width(), canvas);
    };
    // The side panel's chart starts at the same height under every rule (their texts differ).
    auto chartTop = [&] { return page->infoPanel()->chart()->mapTo(page, QPoint(0, 0)).y(); };
    const int top = chartTop();
    for (const char* rule : {"ksample:5", "topk:3", "gumbel:0.5", "sample", "soft", "argmax"}) {
        QVERIFY2(page->setRule(QLatin1String(rule)), rule);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->canvas()->trace()->rule == rule, 60'000);
        same(QLatin1String(rule));
        QVERIFY2(chartTop() == top, qPrintable(QStringLiteral("%1: %2 against %3").arg(QLatin1String(rule)).arg(chartTop()).arg(top)));
        if (QLatin1String(rule) == QLatin1String("gumbel:0.5")) {  // "τ = 0.50" whole, not "τ = 0.!"
            auto* tau = page->toolbar()->findChild<QDoubleSpinBox*>();
            QVERIFY(tau && tau->width() >= tau->fontMetrics().horizontalAdvance(tau->text()) + 20);
        }
    }
    // Class names on the step chart are whole ("Pullover", not "Pullover…").
    QVERIFY(!page->infoPanel()->chart()->chart()->axes(Qt::Vertical).constFirst()->truncateLabels());
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        same(tabs->tabText(i));
    }
    tabs->setCurrentIndex(0);
    // Every tab title is shown whole at 1280x800 (no scroll arrows).
    const QRect last = tabs->tabBar()->tabRect(tabs->count() - 1);
    QVERIFY2(last.right() < tabs->tabBar()->width() && last.left() >= 0,
             qPrintable(QStringLiteral("%1..%2 in %3").arg(last.left()).arg(last.right()).arg(tabs->tabBar()->width())));
    // Long session notes are cut to a few lines: the window keeps 1280x800, the status bar on screen.
    window.setSessionNotes(QString(QStringLiteral("A note that goes on and on about what this demo shows. ")).repeated(30));
    QVERIFY2(window.minimumSizeHint().height() <= 800, qPrintable(QString::number(window.minimumSizeHint().height())));
    QTest::qWait(50);
    QCOMPARE(window.size(), QSize(1280, 800));
    QCOMPARE(page->canvas()->width(), canvas);
    window.setSessionNotes(QString());
}

#include "test_main_window.moc"
