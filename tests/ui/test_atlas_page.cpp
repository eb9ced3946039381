// The Atlas page: its first visit places the default head (the dates Transformer's layer 2,
// head 3, 40 sentences), every dot sits where the map says and names its token, the figures beside
// it are core's, a click on a dot opens its sentence on the Sequences page (or the ViT's test
// image on the Attention page), and another model leaves nothing of the one before. A user's file
// of sentences under UMAP places the cross-attention of the decoder's queries and the source's
// keys, and a click opens that cross-attention head on the Sequences page; a ViT placed over
// another dataset opens that dataset's image.

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/atlas/atlas_map_view.h"
#include "ui/atlas/atlas_page.h"
#include "common/samples_dir.h"
#include "data/seq_task.h"
#include "io/session.h"
#include "ui/attention/attention_page.h"
#include "ui/attention/attention_toolbar.h"
#include "ui/attention/step_scrubber.h"
#include "ui/main_window.h"
#include "ui/sequences/sequences_page.h"

using saccade::ui::MainWindow;

class TestAtlasPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void placesTheDefaultAndOpensAClickedInput();
    void placesACrossAttentionOfASentenceFileWithUmap();
    void aViTAtlasOfAnotherDatasetOpensThatDatasetsImage();
};

namespace {

// A dot that is the nearest one to the pixel it is drawn on (not under another), of a query when `query`.
int clickable(const saccade::ui::AtlasMapView* map, const saccade::Atlas& a, bool query) {
    for (int i = 0; i < int(a.points.size()); ++i)
        if (a.points[std::size_t(i)].query == query && map->pointAt(QPointF(map->drawnAt(i).toPoint())) == i) return i;
    return -1;
}

}  // namespace

void TestAtlasPage::placesTheDefaultAndOpensAClickedInput() {
    MainWindow window(/*useSettings=*/false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.setCurrentPage(MainWindow::kAtlasPage));
    auto* page = window.atlasPage();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->atlas().has_value(), 300'000);
    const saccade::Atlas a = *page->atlas();
    QCOMPARE(a.layer, 2);
    QCOMPARE(a.head, 3);
    QCOMPARE(int(a.inputs), 40);
    QCOMPARE(QString::fromStdString(a.positions), QStringLiteral("token"));
    QCOMPARE(int(a.sentences.size()), 40);
    // Every dot is drawn inside the map, and the one under it names its token and input.
    auto* map = page->map();
    const QRect inside = map->rect();
    for (int i = 0; i < int(a.points.size()); ++i) {
        const QPointF at = map->drawnAt(i);
        QVERIFY2(inside.contains(at.toPoint()), qPrintable(QStringLiteral("dot %1 at %2,%3").arg(i).arg(at.x()).arg(at.y())));
        const int under = map->pointAt(at);
        QVERIFY(under >= 0);
        QVERIFY(map->describe(under).contains(QString::fromStdString(a.points[std::size_t(under)].label)));
    }
    // The figures beside the map are core's.
    const auto o = saccade::atlasOffsets(a);
    QVERIFY2(page->summaryText().contains(QStringLiteral("%1%").arg(100 * o.attended[0], 0, 'f', 1)), qPrintable(page->summaryText()));
    QVERIFY(page->summaryText().contains(QStringLiteral("%1%").arg(100 * o.chance[0], 0, 'f', 1)));
    // A click on a query opens its sentence on the Sequences page.
    const int dot = clickable(map, a, true);
    QVERIFY(dot >= 0);
    const int input = a.points[std::size_t(dot)].input;
    QTest::mouseClick(map, Qt::LeftButton, {}, map->drawnAt(dot).toPoint());
    QTRY_COMPARE(window.currentPage(), MainWindow::kSequencesPage);
    QCOMPARE(window.sequencesPage()->text(), QString::fromStdString(a.sentences[std::size_t(input)]));
    // ... with the placed layer and head's map shown.
    const auto shown = window.sequencesPage()->captureSession();
    QVERIFY(shown.has_value());
    QCOMPARE(QString::fromStdString(shown->map), QStringLiteral("encoder layer 2 head 3"));
    // Another model: the ViT's patches, and nothing of the Transformer's map.
    QVERIFY(window.setCurrentPage(MainWindow::kAtlasPage));
    const QString vit = QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/models/vit-translated-fashion60.pt");
    page->select(vit, 2, 2);
    page->setInputs(3);
    page->run();
    QVERIFY(!page->atlas().has_value() || page->atlas()->model == vit.toStdString());  // the old map is gone at once
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->atlas().has_value(), 300'000);
    QCOMPARE(QString::fromStdString(page->atlas()->positions), QStringLiteral("patch"));
    QCOMPARE(page->atlas()->gridCols, 6);
    QCOMPARE(int(page->atlas()->points.size()), 2 * 3 * 37);
    // A click on a key opens its test image on the Attention page under head:1 (head 2), at layer 2's step.
    const int key = clickable(map, *page->atlas(), false);
    QVERIFY(key >= 0);
    QTest::mouseClick(map, Qt::LeftButton, {}, map->drawnAt(key).toPoint());
    QTRY_COMPARE(window.currentPage(), MainWindow::kAttentionPage);
    auto* attention = window.attentionPage();
    QTRY_VERIFY_WITH_TIMEOUT(!attention->isBusy() && attention->scrubber()->stepCount() > 1, 60'000);
    QCOMPARE(attention->toolbar()->rule(), QStringLiteral("head:1"));
    QTRY_COMPARE(attention->scrubber()->currentStep(), 1);
}

void TestAtlasPage::placesACrossAttentionOfASentenceFileWithUmap() {
    MainWindow window(/*useSettings=*/false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.setCurrentPage(MainWindow::kAtlasPage));
    auto* page = window.atlasPage();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->atlas().has_value(), 300'000);  // the first visit's default
    // Forty test sentences in a file of the user's.
    const auto task = saccade::openSeqTask("dates");
    QVERIFY(task.ok());
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("sentences.txt"));
    QStringList sentences;
    for (int i = 0; i < 40; ++i)
        sentences << QString::fromStdString((*task)->detokenize((*task)->sample(saccade::Split::Test, i, saccade::kSeqTestSeed).source));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(sentences.join(QLatin1Char('\n')).toUtf8() + "\n");
    out.close();
    const QString seq = QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/models/seq-dates-transformer.pt");
    page->select(seq, 1, 2, QStringLiteral("cross"));
    page->setDataset(file);
    page->setMethod(QStringLiteral("umap"));
    page->setInputs(40);
    page->run();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->atlas().has_value() && page->atlas()->attention == "cross", 300'000);
    const saccade::Atlas a = *page->atlas();
    QCOMPARE(QString::fromStdString(a.method), QStringLiteral("umap"));
    QCOMPARE(QString::fromStdString(a.dataset), file);
    QCOMPARE(QString::fromStdString(a.modelLayer), QStringLiteral("cross layer 1"));
    QCOMPARE(int(a.sentences.size()), 40);
    for (int i = 0; i < 40; ++i) QCOMPARE(QString::fromStdString(a.sentences[std::size_t(i)]), sentences[i]);
    // The figure beside the map is core's; cross-attention has no table of positions apart.
    const auto o = saccade::atlasOffsets(a);
    const QString summary = page->summaryText();
    QVERIFY2(summary.contains(QStringLiteral("%1% (chance %2%)").arg(100 * o.nearestIsAttended, 0, 'f', 1)
                                  .arg(100 * o.chanceIsAttended, 0, 'f', 1)), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("cross layer 1, head 2")), qPrintable(summary));
    QVERIFY(!summary.contains(QStringLiteral("How far")));
    auto* map = page->map();
    for (int i = 0; i < int(a.points.size()); ++i) QVERIFY(map->rect().contains(map->drawnAt(i).toPoint()));
    if (qEnvironmentVariableIsSet("SACCADE_SCREENSHOT_DIR"))
        window.grab().save(qEnvironmentVariable("SACCADE_SCREENSHOT_DIR") + QStringLiteral("/atlas-cross-umap-1280x800.png"));
    // A click on a query opens its sentence on the Sequences page with that cross-attention head shown.
    const int dot = clickable(map, a, true);
    QVERIFY(dot >= 0);
    const int input = a.points[std::size_t(dot)].input;
    QTest::mouseClick(map, Qt::LeftButton, {}, map->drawnAt(dot).toPoint());
    QTRY_COMPARE(window.currentPage(), MainWindow::kSequencesPage);
    QCOMPARE(window.sequencesPage()->text(), sentences[input]);
    const auto shown = window.sequencesPage()->captureSession();
    QVERIFY(shown.has_value());
    QCOMPARE(QString::fromStdString(shown->map), QStringLiteral("cross layer 1 head 2"));
}

void TestAtlasPage::aViTAtlasOfAnotherDatasetOpensThatDatasetsImage() {
    MainWindow window(/*useSettings=*/false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.setCurrentPage(MainWindow::kAtlasPage));
    auto* page = window.atlasPage();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->atlas().has_value(), 300'000);
    const QString vit = QString::fromStdString(saccade::findSamplesDir()) + QStringLiteral("/models/vit-translated-fashion60.pt");
    page->select(vit, 1, 1);
    page->setDataset(QStringLiteral("translated-digits60"));
    page->setMethod(QStringLiteral("pca"));
    page->setInputs(3);
    page->run();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isBusy() && page->atlas().has_value() && page->atlas()->model == vit.toStdString(), 300'000);
    QCOMPARE(QString::fromStdString(page->atlas()->dataset), QStringLiteral("translated-digits60"));
    // A click on a key opens that dataset's test image on the Attention page, not the model's own.
    auto* map = page->map();
    const int key = clickable(map, *page->atlas(), false);
    QVERIFY(key >= 0);
    const int input = page->atlas()->points[std::size_t(key)].input;
    QTest::mouseClick(map, Qt::LeftButton, {}, map->drawnAt(key).toPoint());
    QTRY_COMPARE(window.currentPage(), MainWindow::kAttentionPage);
    auto* attention = window.attentionPage();
    QTRY_VERIFY_WITH_TIMEOUT(!attention->isBusy() && attention->scrubber()->stepCount() > 1, 60'000);
    saccade::Session shown;
    QVERIFY2(attention->captureSession(shown).isEmpty(), "the page could not describe what it shows");
    QCOMPARE(QString::fromStdString(shown.dataset), QStringLiteral("translated-digits60"));
    QCOMPARE(int(shown.sampleIndex), input);
}

QTEST_MAIN(TestAtlasPage)
#include "test_atlas_page.moc"
