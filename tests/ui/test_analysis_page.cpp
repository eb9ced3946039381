// The "Probes & cost" page on the bundled default model: a boundary sweep with its failure map,
// profile, worst positions and exports; a click that opens the case with its runs on the
// Attention page; the faithfulness report with its caveat; and the cost of each rule per stage.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QLabel>
#include <QPushButton>
#include <atomic>
#include <chrono>
#include <thread>
#include <QComboBox>
#include <QStackedWidget>
#include <QProgressBar>
#include <QtTest>

#include "ui/analysis_job.h"
#include "ui/analysis/analysis_page.h"
#include "ui/attention/attention_canvas.h"
#include "ui/attention/attention_page.h"
#include "ui/attention/attention_toolbar.h"
#include "ui/charts/cost_chart.h"
#include "ui/charts/series_chart.h"
#include "ui/charts/sweep_map_view.h"
#include "ui/attention/compare_runs_panel.h"
#include "ui/analysis/caption_faithfulness_panel.h"
#include "ui/analysis/caption_sweep_panel.h"
#include "ui/analysis/cost_panel.h"
#include "ui/analysis/faithfulness_panel.h"
#include "ui/analysis/map_table_panel.h"
#include "ui/main_window.h"
#include "models/attention_model.h"
#include "ui/analysis/sweep_panel.h"

using namespace saccade;
using namespace saccade::ui;

namespace {

QStringList fileLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

}  // namespace

class TestAnalysisPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sweepMapsFailuresAndOpensACase();
    void sizeSeriesSummarisesEachSweep();
    void faithfulnessStatesItsCaveatAndFigures();
    void costShowsEveryStageAndRule();
    void modelSwitchLeavesNoStaleState();
    void aProgressReportStillQueuedWhenAJobIsForgottenLeavesTheBarEmpty();
    void faithfulnessComparesRawAttentionWithRollout();
    void captionerSweepsAnObjectUnderItsWords();
    void cleanupTestCase();

private:
    MainWindow* m_window = nullptr;
};

void TestAnalysisPage::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    m_window = new MainWindow(/*useSettings=*/false);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    // The attention page loads the bundled model and hands it to this page.
    QTRY_VERIFY_WITH_TIMEOUT(m_window->analysisPage()->sweepPanel()->summaryText().startsWith(QStringLiteral("Model:")), 60'000);
    QVERIFY(m_window->setCurrentPage(MainWindow::kAnalysisPage));
}

void TestAnalysisPage::cleanupTestCase() { delete m_window; }

void TestAnalysisPage::faithfulnessComparesRawAttentionWithRollout() {
    // The bundled ViT: its raw attention and its rollout, measured on the same images, agree at
    // the first layer (the identity only weighs the dropped CLS token) and part after it.
    auto* panel = m_window->analysisPage()->faithfulnessPanel();
    const QString vit = QDir(m_window->attentionPage()->bundledFolder()).filePath(QStringLiteral("vit-translated-fashion60.pt"));
    auto* maps = panel->findChild<QComboBox*>(QStringLiteral("faithfulnessMap"));
    QVERIFY(maps);
    // A model with one kind of map offers just that; a transformer offers raw attention and rollout.
    panel->setModel(QStringLiteral("patch.pt"), QStringLiteral("translated-fashion60"),
                    {QStringLiteral("argmax"), QStringLiteral("sample"), QStringLiteral("soft")}, QStringLiteral("argmax"));
    QCOMPARE(maps->count(), 1);
    QCOMPARE(maps->currentText(), QStringLiteral("argmax maps"));
    QVERIFY(!maps->isEnabled());
    panel->setModel(vit, QStringLiteral("translated-fashion60"),
                    {QStringLiteral("attention"), QStringLiteral("head"), QStringLiteral("rollout")},
                    QStringLiteral("attention"));
    QCOMPARE(maps->count(), 2);
    QVERIFY(maps->isEnabled());
    panel->setImages(20, 0);
    panel->setMapRule(QStringLiteral("attention"));
    panel->run();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->report() && panel->report()->rule == "attention", qPrintable(panel->summaryText()), 120'000);
    const auto raw = *panel->report();
    panel->setMapRule(QStringLiteral("rollout"));
    panel->run();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->report() && panel->report()->rule == "rollout", qPrintable(panel->summaryText()), 120'000);
    const auto rolled = *panel->report();
    QCOMPARE(int(rolled.massPerStep.size()), 4);
    QCOMPARE(panel->stepTable()->rowCount(), 4);
    QVERIFY(std::abs(raw.massPerStep[0] - rolled.massPerStep[0]) < 1e-9);
    QVERIFY(std::abs(raw.massPerStep[3] - rolled.massPerStep[3]) > 1e-3);
}

void TestAnalysisPage::sweepMapsFailuresAndOpensACase() {
    auto* sweep = m_window->analysisPage()->sweepPanel();
    sweep->setRuns(4);
    sweep->run();
    QTRY_VERIFY2_WITH_TIMEOUT(sweep->result() != nullptr, qPrintable(sweep->summaryText()), 120'000);
    const SweepResult r = *sweep->result();
    // Two 6-px cells each way on the hard patch model's 10x10 grid of a 60x60 input.
    QCOMPARE(r.probe.cellSize, 6);
    QCOMPARE(int(r.points.size()), 12 * 12);
    QCOMPARE(r.points.front().sampleRuns, 4);
    QVERIFY(sweep->map()->hasResult());
    const QRect square = sweep->map()->squareOf(-6, -6);
    QVERIFY(!square.isEmpty());
    QVERIFY(sweep->map()->squareOf(-7, 0).isEmpty());
    // The worst list starts with the lowest share of right runs.
    auto* worst = sweep->worstTable();
    QVERIFY(worst->rowCount() > 0);
    double lowest = 1;
    for (const auto& p : r.points) lowest = std::min(lowest, p.sampleAccuracy);
    QCOMPARE(worst->item(0, 3)->text(), QStringLiteral("%1%").arg(100 * lowest, 0, 'f', 1));
    // The profile along dx at dy = 0 has one point per dx for each figure.
    QVERIFY(!sweep->profile()->series().isEmpty());
    QCOMPARE(sweep->profile()->series().front().points.size(), 12);
    QTemporaryDir dir;
    const QString d = dir.path() + QLatin1Char('/');
    QCOMPARE(sweep->exportMap(d + QStringLiteral("map.png")), QString());
    QCOMPARE(sweep->exportMap(d + QStringLiteral("map.csv")), QString());
    QCOMPARE(fileLines(d + QStringLiteral("map.csv")).size(), 1 + 144);
    QCOMPARE(sweep->exportProfile(d + QStringLiteral("profile.csv")), QString());
    QCOMPARE(fileLines(d + QStringLiteral("profile.csv")).size(), 1 + 12);
    QCOMPARE(sweep->exportWorst(d + QStringLiteral("worst.csv")), QString());
    QCOMPARE(sweep->exportJson(d + QStringLiteral("sweep.json")), QString());
    QVERIFY(fileLines(d + QStringLiteral("sweep.json")).join(QString()).contains(QStringLiteral("saccade.sweep")));

    // Clicking a square opens that probe on the Attention page and runs its sampled runs.
    const auto& target = r.points[size_t(worst->item(0, 1)->text().toInt() + 6) * 12 + size_t(worst->item(0, 0)->text().toInt() + 6)];
    m_window->attentionPage()->toolbar()->setSeed(r.seed + 76);  // opening the case restores the sweep's seed
    QTest::mouseClick(sweep->map(), Qt::LeftButton, {}, sweep->map()->squareOf(target.dx, target.dy).center());
    QCOMPARE(m_window->currentPage(), MainWindow::kAttentionPage);
    auto* attention = m_window->attentionPage();
    const QString id = QStringLiteral("probe:%1,%2").arg(target.dx).arg(target.dy);
    QTRY_VERIFY_WITH_TIMEOUT(attention->canvas()->trace() && QString::fromStdString(attention->canvas()->trace()->imageId) == id, 30'000);
    QTRY_VERIFY_WITH_TIMEOUT(attention->runsPanel()->shownSet() && !attention->runsPanel()->isRunning(), 30'000);
    const RunSet& set = *attention->runsPanel()->shownSet();
    QCOMPARE(QString::fromStdString(set.imageId), id);
    QCOMPARE(int(set.runs.size()), 4);
    QCOMPARE(set.seed, r.seed);
    // The same runs as the sweep's: the same share of them right.
    int right = 0;
    for (const auto& run : set.runs) right += run.label == target.truth;
    QCOMPARE(double(right) / 4, target.sampleAccuracy);
    QVERIFY(m_window->setCurrentPage(MainWindow::kAnalysisPage));
}

void TestAnalysisPage::sizeSeriesSummarisesEachSweep() {
    auto* sweep = m_window->analysisPage()->sweepPanel();
    sweep->setRuns(2);
    sweep->setSeries(QStringLiteral("size"), QStringLiteral("8, 28"));
    sweep->run();
    QTRY_VERIFY2_WITH_TIMEOUT(!sweep->isRunning() && sweep->series().size() == 2, qPrintable(sweep->summaryText()), 120'000);
    const auto series = sweep->series();
    QCOMPARE(series[0].value, 8);
    QCOMPARE(series[1].value, 28);
    // A 28-px object fits fewer offsets on the 60-px canvas than an 8-px one.
    QVERIFY(series[1].positions < series[0].positions);
    QCOMPARE(sweep->result()->probe.objectSize, 28);  // the map shows the last value
    const auto& chart = sweep->seriesChart()->series();
    QVERIFY(!chart.isEmpty());
    QCOMPARE(chart[0].points.size(), 2);
    QCOMPARE(chart[0].points[1].x(), 28.0);
    QCOMPARE(chart[0].points[1].y(), series[1].deterministicAccuracy);
    QTemporaryDir dir;
    QCOMPARE(sweep->exportSeries(dir.path() + QStringLiteral("/series.csv")), QString());
    QCOMPARE(fileLines(dir.path() + QStringLiteral("/series.csv")).size(), 3);
    sweep->setSeries({}, {});
}

void TestAnalysisPage::faithfulnessStatesItsCaveatAndFigures() {
    auto* panel = m_window->analysisPage()->faithfulnessPanel();
    QVERIFY(panel->caveatText().contains(QStringLiteral("not an explanation")));
    panel->setImages(12, 1);
    panel->run();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->report() != nullptr, qPrintable(panel->summaryText()), 120'000);
    const auto& r = *panel->report();
    QCOMPARE(r.images, 12);
    QCOMPARE(panel->stepTable()->rowCount(), 4);
    QCOMPARE(panel->stepTable()->item(0, 1)->text(), QStringLiteral("%1%").arg(100 * r.massPerStep[0], 0, 'f', 1));
    QCOMPARE(panel->deletionChart()->series().size(), 4);
    QCOMPARE(panel->deletionChart()->series()[0].points.size(), int(r.deletion.size()));
    QTemporaryDir dir;
    const QString d = dir.path() + QLatin1Char('/');
    QCOMPARE(panel->exportDeletion(d + QStringLiteral("deletion.csv")), QString());
    QCOMPARE(fileLines(d + QStringLiteral("deletion.csv")).size(), 1 + int(r.deletion.size()));
    QCOMPARE(panel->exportReliability(d + QStringLiteral("reliability.svg")), QString());
    QCOMPARE(panel->exportSteps(d + QStringLiteral("steps.csv")), QString());
    QCOMPARE(panel->exportJson(d + QStringLiteral("f.json")), QString());
}

void TestAnalysisPage::costShowsEveryStageAndRule() {
    auto* panel = m_window->analysisPage()->costPanel();
    panel->run();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->report() != nullptr, qPrintable(panel->notesText()), 120'000);
    const QStringList bars = panel->chart()->categories();
    QCOMPARE(bars.size(), 8);
    QCOMPARE(bars.front(), QStringLiteral("dense / soft"));
    QVERIFY(bars.contains(QStringLiteral("select / sample")) && bars.contains(QStringLiteral("select / gumbel:1")));
    QVERIFY2(panel->notesText().contains(QStringLiteral("Selection saved nothing")), qPrintable(panel->notesText()));
    panel->showFlops(true);
    const QStringList csv = panel->chart()->csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 9);
    QVERIFY(csv[0].contains(QStringLiteral("encoder")) && csv[0].endsWith(QStringLiteral("unit")));
    QVERIFY(csv[3].endsWith(QStringLiteral("MFLOP")));
    QTemporaryDir dir;
    QCOMPARE(panel->exportChart(dir.path() + QStringLiteral("/cost.svg")), QString());
    QCOMPARE(panel->exportJson(dir.path() + QStringLiteral("/cost.json")), QString());
}

// The "faithfulness bar stays at 13% after a model switch": a progress report the job
// posted before a model switch forgot it arrives after the switch emptied the bar.
void TestAnalysisPage::aProgressReportStillQueuedWhenAJobIsForgottenLeavesTheBarEmpty() {
    saccade::ui::AnalysisJob job;
    QProgressBar bar;
    bar.setRange(0, 1000);
    QPushButton run, cancel;
    QLabel message;
    saccade::ui::bindJobControls(&job, &run, &cancel, &bar, &message);
    std::atomic_bool reported{false};
    QVERIFY(job.startShown(
        [&](const saccade::Progress& progress) {
            progress(0.13);  // posted to the window's thread, not yet delivered
            reported = true;
            while (progress(0.13)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return QString();
        },
        [] {}, QStringLiteral("Measuring")));
    while (!reported) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // no events delivered yet
    job.forget();  // the model switch
    QCOMPARE(bar.value(), 0);
    QTest::qWait(200);  // the queued report is delivered now
    QCOMPARE(bar.value(), 0);
    QVERIFY(run.isEnabled());
}

void TestAnalysisPage::modelSwitchLeavesNoStaleState() {
    auto* page = m_window->analysisPage();
    QVERIFY(page->sweepPanel()->result() && page->faithfulnessPanel()->report() && page->costPanel()->report());
    QList<QProgressBar*> bars;  // full after the old model's measurements
    for (QWidget* panel : {static_cast<QWidget*>(page->sweepPanel()), static_cast<QWidget*>(page->faithfulnessPanel()),
                           static_cast<QWidget*>(page->costPanel())})
        bars << panel->findChild<QProgressBar*>();
    for (auto* bar : bars) QVERIFY(bar && bar->value() == bar->maximum());
    auto* attention = m_window->attentionPage();
    attention->openModel(QDir(attention->bundledFolder()).filePath(QStringLiteral("ram-fashion28.pt")));
    QTRY_VERIFY_WITH_TIMEOUT(page->sweepPanel()->summaryText().contains(QStringLiteral("ram-fashion28.pt")), 60'000);
    // Every figure of the old model is gone, and every panel names the new one.
    QVERIFY(!page->sweepPanel()->result());
    QVERIFY(page->sweepPanel()->series().empty());
    QVERIFY(!page->sweepPanel()->map()->hasResult());
    QCOMPARE(page->sweepPanel()->worstTable()->rowCount(), 0);
    QVERIFY(!page->faithfulnessPanel()->report());
    QCOMPARE(page->faithfulnessPanel()->stepTable()->rowCount(), 0);
    QVERIFY2(page->faithfulnessPanel()->summaryText().contains(QStringLiteral("ram-fashion28.pt")),
             qPrintable(page->faithfulnessPanel()->summaryText()));
    QVERIFY(!page->costPanel()->report());
    QVERIFY(page->costPanel()->chart()->categories().isEmpty());
    QVERIFY2(page->costPanel()->notesText().contains(QStringLiteral("ram-fashion28.pt")), qPrintable(page->costPanel()->notesText()));
    QVERIFY(!attention->runsPanel()->shownSet());
    for (auto* bar : bars) QCOMPARE(bar->value(), 0);  // a full bar would claim the new model was measured
}

QTEST_MAIN(TestAnalysisPage)
void TestAnalysisPage::captionerSweepsAnObjectUnderItsWords() {
    // A captioner: the Boundary sweep and Faithfulness tabs show the captioner's panels in place of
    // the classifiers', the Maps tab (of one answer) goes, and the sweep's figures are the core's.
    auto* page = m_window->analysisPage();
    const QString folder = m_window->attentionPage()->bundledFolder();
    const QString captioner = QDir(folder).filePath(QStringLiteral("caption-soft-scenes64.pt"));
    page->tabs()->setCurrentWidget(page->mapTablePanel());  // a tab the captioner cannot use: it moves on
    // A classifier's measurement still running is stopped by the switch (its tab goes disabled).
    page->faithfulnessPanel()->setImages(2000, 0);
    page->faithfulnessPanel()->run();
    QVERIFY(page->faithfulnessPanel()->isRunning());
    page->setModel(captioner, QStringLiteral("scenes64"), {QStringLiteral("soft"), QStringLiteral("beam")},
                   QStringLiteral("argmax"), OutputKind::Caption);
    auto* tabs = page->tabs();
    auto* panel = page->captionSweepPanel();
    auto* sweep = page->sweepTab();
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(sweep));
    QCOMPARE(sweep->currentWidget(), static_cast<QWidget*>(panel));
    QCOMPARE(tabs->tabText(tabs->indexOf(sweep)), QStringLiteral("Boundary sweep"));
    QTRY_VERIFY_WITH_TIMEOUT(!page->faithfulnessPanel()->isRunning(), 60'000);  // cancelled: it ends its image
    QVERIFY(page->faithfulnessPanel()->report() == nullptr);                   // and delivers nothing
    QVERIFY(tabs->isTabEnabled(tabs->indexOf(sweep)));
    QVERIFY(!tabs->isTabEnabled(tabs->indexOf(page->mapTablePanel())));
    // The Faithfulness tab stays, and measures the captioner word by word.
    auto* faithfulness = qobject_cast<QStackedWidget*>(page->faithfulnessTab());
    QVERIFY(faithfulness && tabs->isTabEnabled(tabs->indexOf(faithfulness)));
    QCOMPARE(faithfulness->currentWidget(), static_cast<QWidget*>(page->captionFaithfulnessPanel()));
    panel->setObject(QStringLiteral("small green square"));
    panel->setRuns(2);
    panel->run();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->result() != nullptr, qPrintable(panel->summaryText()), 120'000);
    const CaptionSweep shown = *panel->result();
    auto model = loadAttentionModel(captioner.toStdString(), "auto");  // the device the panel uses
    QVERIFY(model.ok());
    CaptionSweepOptions o;
    o.object = "small green square";
    o.runs = 2;
    auto direct = sweepCaptionProbe(**model, o);
    QVERIFY2(direct.ok(), direct.error().c_str());
    QCOMPARE(shown.points.size(), direct->points.size());
    {
        auto* words = page->captionFaithfulnessPanel();
        words->setScenes(2);
        words->run();
        QTRY_VERIFY2_WITH_TIMEOUT(words->report() != nullptr, qPrintable(words->summaryText()), 120'000);
        CaptionFaithfulnessOptions fo;
        fo.limit = 2;
        auto scenes = openDataset("scenes64");
        QVERIFY(scenes.ok());
        auto measured = measureCaptionFaithfulness(**model, **scenes, Split::Test, fo);
        QVERIFY2(measured.ok(), measured.error().c_str());
        QCOMPARE(words->report()->words, measured->words);
        QCOMPARE(words->report()->deletion.size(), measured->deletion.size());
        for (size_t f = 0; f < measured->deletion.size(); ++f) {
            QCOMPARE(words->report()->deletion[f].keptAttended, measured->deletion[f].keptAttended);
            QCOMPARE(words->report()->deletion[f].keptRandom, measured->deletion[f].keptRandom);
        }
        QCOMPARE(words->deletionChart()->series().size(), 2);
        QVERIFY2(words->summaryText().contains(QStringLiteral("%1 object words").arg(measured->words)),
                 qPrintable(words->summaryText()));
        QTemporaryDir out;
        QCOMPARE(words->exportJson(out.filePath(QStringLiteral("words.json"))), QString());
    }
    QVERIFY(shown.points.size() > 4);
    int right = 0;
    for (size_t i = 0; i < shown.points.size(); ++i) {
        QCOMPARE(shown.points[i].caption, direct->points[i].caption);
        QCOMPARE(shown.points[i].colourRight, direct->points[i].colourRight);
        QCOMPARE(shown.points[i].runsColourRight, direct->points[i].runsColourRight);
        right += shown.points[i].colourRight;
    }
    QCOMPARE(panel->table()->rowCount(), int(shown.points.size()));
    QCOMPARE(panel->table()->item(0, 1)->text(), QString::fromStdString(shown.points[0].caption));
    QCOMPARE(panel->profile()->series().size(), 5);  // colour, sampled, exact, mass, hit
    QVERIFY2(panel->summaryText().contains(QStringLiteral("<b>%1 of %2</b>").arg(right).arg(shown.points.size())),
             qPrintable(panel->summaryText()));
    // A row opens its probe: the image the sweep captioned at that offset, with the object's box.
    {
        QSignalSpy chosen(page, &AnalysisPage::caseChosen);
        QVERIFY(!panel->choose(int(shown.points.size())));
        const int row = 2;
        QVERIFY(panel->choose(row));
        QCOMPARE(chosen.count(), 1);
        const auto& p = shown.points[size_t(row)];
        QCOMPARE(chosen[0][1].toString(), QStringLiteral("caption probe dx %1").arg(p.dx));
        const auto truth = chosen[0][2].value<GroundTruth>();
        QCOMPARE(truth.boxes.size(), size_t(1));
        QCOMPARE(truth.boxes[0].x, p.x);
        QCOMPARE(truth.boxes[0].y, p.y);
        const auto image = chosen[0][0].value<Image>();
        auto again = (*model)->trace(image, shown.deterministicRule, 1, "probe");
        QVERIFY2(again.ok(), again.error().c_str());
        QCOMPARE(again->output.text, p.caption);
    }
    QTemporaryDir dir;
    QCOMPARE(panel->exportJson(dir.filePath(QStringLiteral("sweep.json"))), QString());
    QCOMPARE(panel->exportTable(dir.filePath(QStringLiteral("sweep.csv"))), QString());
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("sweep.csv"))).size() > 100);
    if (qEnvironmentVariableIsSet("SACCADE_SCREENSHOT_DIR")) {  // docs/caption-sweep-page.png: results.md's sweep
        panel->setObject(QStringLiteral("small red circle"));
        panel->setRuns(20);
        panel->run();
        QTRY_VERIFY_WITH_TIMEOUT(panel->result() && panel->result()->runs == 20, 120'000);
        QVERIFY(m_window->setCurrentPage(MainWindow::kAnalysisPage));
        QCoreApplication::processEvents();
        m_window->grab().save(qEnvironmentVariable("SACCADE_SCREENSHOT_DIR") + QStringLiteral("/caption-sweep-page.png"));
    }
    // Back to a classifier: its panels return in the same tabs, and the Maps tab.
    page->setModel(QDir(folder).filePath(QStringLiteral("patch-hard-fashion60.pt")), QStringLiteral("translated-fashion60"),
                   {QStringLiteral("argmax"), QStringLiteral("sample"), QStringLiteral("soft")}, QStringLiteral("argmax"),
                   OutputKind::Class);
    QCOMPARE(sweep->currentWidget(), static_cast<QWidget*>(page->sweepPanel()));
    QVERIFY(tabs->isTabEnabled(tabs->indexOf(page->mapTablePanel())));
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(sweep));
    QCOMPARE(faithfulness->currentWidget(), static_cast<QWidget*>(page->faithfulnessPanel()));
}

#include "test_analysis_page.moc"
