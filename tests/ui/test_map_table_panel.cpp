// The maps table on the "Probes & cost" page (issue 37): attention beside attribution on the
// bundled soft patch model, the same figures as compareMaps run directly, the best of each column
// in bold, the curves drawn, the exports; and a map the open model does not give stays off (the
// bundled ViT has no convolutional grid for Grad-CAM, the patch model no rollout).
// With SACCADE_SCREENSHOT_DIR set, the window at 1280x800 on the Maps tab is saved there.

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/analysis/analysis_page.h"
#include "analysis/attribution/faithfulness.h"
#include "analysis/attribution/map_comparison.h"
#include "ui/analysis/map_table_panel.h"
#include "ui/analysis/map_table_view.h"
#include "ui/attention/attention_page.h"
#include "ui/charts/series_chart.h"
#include "ui/main_window.h"
#include "models/model_input.h"
#include "ui/number_format.h"

using namespace saccade;
using namespace saccade::ui;

class TestMapTablePanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void tableShowsWhatCompareMapsMeasures();
    void mapsTheModelLacksAreOff();
    void anImportIsMeasuredOnTheFolderOpen();
    void cleanupTestCase();

private:
    MapTablePanel* panel() const { return m_window->analysisPage()->mapTablePanel(); }
    QString bundled(const char* name) const {
        return QDir(m_window->attentionPage()->bundledFolder()).filePath(QLatin1String(name));
    }

    MainWindow* m_window = nullptr;
};

void TestMapTablePanel::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    m_window = new MainWindow(/*useSettings=*/false);
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    // The Attention page opens the bundled soft patch model and hands it, with its maps, to the page.
    QTRY_VERIFY_WITH_TIMEOUT(panel()->methodBox(QStringLiteral("attention"))->isEnabled(), 60'000);
    QVERIFY(panel()->summaryText().startsWith(QStringLiteral("Model: patch-soft-fashion60.pt")));
    QVERIFY(m_window->setCurrentPage(MainWindow::kAnalysisPage));
    m_window->analysisPage()->tabs()->setCurrentWidget(panel());
}

void TestMapTablePanel::cleanupTestCase() { delete m_window; }

// An imported model with no dataset of its own: the table says so until a folder of images is
// open on the Attention page, and then measures that folder (issue 51).
void TestMapTablePanel::anImportIsMeasuredOnTheFolderOpen() {
    auto* p = panel();
    const QString vit = QDir(QStringLiteral(SACCADE_SAMPLES_DIR)).filePath(QStringLiteral("torchscript/torchvision_vit.pt"));
    m_window->attentionPage()->openModel(vit);
    QTRY_VERIFY_WITH_TIMEOUT(p->summaryText().contains(QStringLiteral("torchvision_vit.pt")), 60'000);
    QVERIFY2(p->summaryText().contains(QStringLiteral("no dataset of its own")), qPrintable(p->summaryText()));
    QVERIFY(p->methodBox(QStringLiteral("gradient"))->isEnabled());  // imports have gradients
    QVERIFY(!p->methodBox(QStringLiteral("gradient-rollout"))->isEnabled());
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    Q_EMIT m_window->attentionPage()->folderInUse(folder.path());
    QVERIFY2(p->summaryText().contains(QStringLiteral("Compare its attention with attribution on %1").arg(folder.path())),
             qPrintable(p->summaryText()));
}

void TestMapTablePanel::tableShowsWhatCompareMapsMeasures() {
    auto* p = panel();
    QVERIFY(!p->methodBox(QStringLiteral("rollout"))->isEnabled());  // not a transformer
    QVERIFY(!p->methods().isEmpty());  // a first model ticks its defaults
    p->setMethods({QStringLiteral("attention"), QStringLiteral("gradient-x-input")});
    QCOMPARE(p->methods(), QStringList({QStringLiteral("attention"), QStringLiteral("gradient-x-input")}));
    p->setImages(6, 2);
    p->run();
    QVERIFY(p->isRunning());
    QTRY_VERIFY2_WITH_TIMEOUT(p->report() != nullptr, qPrintable(p->summaryText()), 180'000);
    QVERIFY(!p->isRunning());
    const MapComparisonReport shown = *p->report();

    // The same measurement run directly on core.
    auto model = loadAttentionModel(bundled("patch-soft-fashion60.pt").toStdString(), "auto");
    QVERIFY(model);
    auto data = openDatasetFor(**model, "translated-fashion60", 1);
    QVERIFY2(data, data ? "" : data.error().c_str());
    MapComparisonOptions o;
    o.methods = {"attention", "gradient-x-input"};
    o.limit = 6;
    o.sanityImages = 2;
    auto direct = compareMaps(**model, **data, Split::Test, o);
    QVERIFY2(direct, direct ? "" : direct.error().c_str());
    QCOMPARE(int(shown.images), 6);
    QCOMPARE(int(shown.sanityImages), 2);
    QVERIFY(shown.uniformMass && std::abs(*shown.uniformMass - *direct->uniformMass) < 1e-9);

    auto* table = p->table();
    QCOMPARE(table->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
        const MapFigures& d = direct->maps[size_t(row)];
        const MapFigures& s = shown.maps[size_t(row)];
        QCOMPARE(table->item(row, kMapName)->text(), QString::fromStdString(d.method));
        QVERIFY(s.massInBox && *s.massInBox >= 0 && *s.massInBox <= 1);
        QVERIFY(std::abs(*s.massInBox - *d.massInBox) < 1e-6);
        QVERIFY(std::abs(*s.pointing - *d.pointing) < 1e-6);
        QVERIFY(std::abs(s.deletionAuc - d.deletionAuc) < 1e-6);
        QVERIFY(std::abs(s.insertionAuc - d.insertionAuc) < 1e-6);
        QVERIFY(s.sanity && s.sanity->finalSpearman && d.sanity && d.sanity->finalSpearman);
        QVERIFY(std::abs(*s.sanity->finalSpearman - *d.sanity->finalSpearman) < 1e-6);
        // The table says the measured figures, never a 0 for one not measured.
        QCOMPARE(table->item(row, kMapMass)->text(), formatPercent(*d.massInBox, 1));
        QCOMPARE(table->item(row, kMapPointing)->text(), formatPercent(*d.pointing, 1));
        QCOMPARE(table->item(row, kMapDeletion)->text(), formatFixed(d.deletionAuc, 3));
        QCOMPARE(table->item(row, kMapInsertion)->text(), formatFixed(d.insertionAuc, 3));
        QCOMPARE(table->item(row, kMapSpearman)->text(), formatFixed(*d.sanity->finalSpearman, 2));
        QCOMPARE(table->item(row, kMapFlagged)->text(), d.sanity->flagged ? QStringLiteral("yes") : QStringLiteral("no"));
    }
    // The best of each figure's column in bold: the higher insertion area, the lower deletion area.
    const int betterInsertion = shown.maps[0].insertionAuc >= shown.maps[1].insertionAuc ? 0 : 1;
    QVERIFY(table->item(betterInsertion, kMapInsertion)->font().bold());
    QVERIFY(!table->item(1 - betterInsertion, kMapInsertion)->font().bold() ||
            shown.maps[0].insertionAuc == shown.maps[1].insertionAuc);
    const int betterDeletion = shown.maps[0].deletionAuc <= shown.maps[1].deletionAuc ? 0 : 1;
    QVERIFY(table->item(betterDeletion, kMapDeletion)->font().bold());
    QVERIFY(!table->item(0, kMapName)->font().bold());
    // The caveat, the uniform map's mass for reference, and one curve per map over the fractions.
    QCOMPARE(p->caveatText(), QStringLiteral("<b>%1</b>").arg(QString::fromUtf8(kAttentionCaveat)));
    QVERIFY2(p->referenceText().contains(formatPercent(*direct->uniformMass, 1)), qPrintable(p->referenceText()));
    QCOMPARE(p->deletionChart()->series().size(), 2);
    QCOMPARE(p->insertionChart()->series().size(), 2);
    QCOMPARE(p->deletionChart()->series()[1].points.size(), qsizetype(direct->fractions.size()));

    QTemporaryDir dir;
    const QString d = dir.path() + QLatin1Char('/');
    QCOMPARE(p->exportJson(d + QStringLiteral("maps.json")), QString());
    QFile json(d + QStringLiteral("maps.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    QVERIFY(json.readAll().contains("saccade.map-faithfulness"));
    QCOMPARE(p->exportTable(d + QStringLiteral("maps.csv")), QString());
    QFile csv(d + QStringLiteral("maps.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 1 + 2);  // a header of two lines on screen is one in the file
    QVERIFY2(lines[0].contains(QStringLiteral("deletion AUC (lower better)")), qPrintable(lines[0]));
    QVERIFY(lines[1].startsWith(QStringLiteral("attention,")));
    QCOMPARE(p->exportDeletion(d + QStringLiteral("deletion.png")), QString());
    QCOMPARE(p->exportInsertion(d + QStringLiteral("insertion.csv")), QString());

    if (qEnvironmentVariableIsSet("SACCADE_SCREENSHOT_DIR")) {
        p->setMethods({QStringLiteral("attention"), QStringLiteral("gradient"), QStringLiteral("gradient-x-input"),
                       QStringLiteral("integrated-gradients"), QStringLiteral("occlusion"), QStringLiteral("gradcam")});
        const int maps = int(p->methods().size());
        p->setImages(20, 3);
        p->run();
        QTRY_VERIFY2_WITH_TIMEOUT(!p->isRunning() && p->table()->rowCount() == maps, qPrintable(p->summaryText()), 300'000);
        QTest::qWait(300);
        m_window->grab().save(qEnvironmentVariable("SACCADE_SCREENSHOT_DIR") + QStringLiteral("/probes-attribution-table.png"));
    }
}

void TestMapTablePanel::mapsTheModelLacksAreOff() {
    auto* p = panel();
    m_window->attentionPage()->openModel(bundled("vit-translated-fashion60.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(p->summaryText().contains(QStringLiteral("vit-translated-fashion60.pt")), 60'000);
    // The model's figures are gone with it; its own maps are offered, and what it lacks says why.
    QVERIFY(p->report() == nullptr);
    QCOMPARE(p->table()->rowCount(), 0);
    QVERIFY(p->methodBox(QStringLiteral("rollout"))->isEnabled());
    QVERIFY(p->methodBox(QStringLiteral("attention"))->isEnabled());
    QCheckBox* gradcam = p->methodBox(QStringLiteral("gradcam"));
    QVERIFY(!gradcam->isEnabled());
    QVERIFY2(gradcam->toolTip().contains(QStringLiteral("Grad-CAM")), qPrintable(gradcam->toolTip()));
    QVERIFY(!p->methods().contains(QStringLiteral("gradcam")));
    p->setMethods({QStringLiteral("gradcam")});
    p->run();  // nothing the model gives is ticked: no job
    QVERIFY(!p->isRunning());
    QVERIFY(p->summaryText().contains(QStringLiteral("Tick")));
    // Cancel stops a long comparison and says so; Run is free again.
    p->setMethods({QStringLiteral("attention"), QStringLiteral("rollout")});
    p->setImages(1000, 0);
    p->run();
    QVERIFY(p->isRunning());
    QPushButton* cancel = nullptr;
    for (auto* b : p->findChildren<QPushButton*>())
        if (b->text() == QStringLiteral("Cancel")) cancel = b;
    QVERIFY(cancel && cancel->isEnabled());
    cancel->click();
    QCOMPARE(p->summaryText(), QStringLiteral("Cancelled."));
    QTRY_VERIFY_WITH_TIMEOUT(!p->isRunning(), 60'000);
    QVERIFY(p->report() == nullptr);
}

QTEST_MAIN(TestMapTablePanel)
#include "test_map_table_panel.moc"
