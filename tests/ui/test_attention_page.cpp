// The attention page on the bundled default model: a trace drawn without a click, stepping,
// chosen-cell pixels, rules and seeds, superseded requests, errors, and exports.

#include <QBarSet>
#include <QCheckBox>
#include <QComboBox>
#include <QListWidget>
#include <QDialog>
#include <QDir>
#include <QImageReader>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QToolButton>
#include <numeric>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QStandardItemModel>
#include <QtTest>

#include "shown_attention_page.h"
#include "ui/attention/adequacy_panel.h"
#include "ui/attention/attention_canvas.h"
#include "ui/attention/attention_page.h"
#include "ui/attention/attribution_view.h"
#include "ui/attention/attention_toolbar.h"
#include "ui/attention/caption_strip.h"
#include "ui/charts/band_chart.h"
#include "ui/charts/class_prob_chart.h"
#include "ui/attention/compare_runs_panel.h"
#include "ui/attention/dataset_compare_panel.h"
#include "ui/attention/image_panel.h"
#include "ui/model_service.h"
#include "ui/attention/model_panel.h"
#include "ui/attention/step_info_panel.h"
#include "ui/attention/step_scrubber.h"
#include "ui/attention/trace_export.h"
#include "ui/attention/export_options_dialog.h"
#include "render/trace_render.h"
#include "common/words.h"
#include "data/dataset.h"
#include "models/attention_model.h"
#include "data/image_io.h"

using namespace saccade;
using namespace saccade::ui;

namespace {

bool isChosenColour(QRgb c) { return qRed(c) < 60 && qGreen(c) > 200 && qBlue(c) > 200; }

QStringList fileLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

bool startsWith(const QString& path, const QByteArray& magic) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(magic.size()) == magic;
}

}  // namespace

class TestAttentionPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void opensOnTheBundledDefault();
    void steppingChangesTheOverlay();
    void chosenCellIsDrawnOnItsPixels();
    void sameSeedSameTraceNewSeedRuns();
    void newestRequestWins();
    void badImageFileIsReported();
    void brokenCheckpointIsReportedInTheWindow();
    void resumedModelsCardGivesTheRunsItTook();
    void exportsWriteReadableFiles();
    void exportOptionsDialogReturnsTheChoice();
    void runsPanelComparesSampledRunsWithArgmax();
    void runsStreamInAndExport();
    void anotherModelStartsAfreshUnderItsTrainingRule();
    void ramModelOffersItsRulesAndDrawsGlimpses();
    void captionerShowsItsCaptionWordByWord();
    void datasetComparisonListsRulesAndDisagreements();
    void datasetTabComparesOnAnImageFolder();
    void imagesTabBrowsesAnImageFolder();
    void importedTransformerOffersRolloutAndHeads();
    void attributionMapBesideAttention();
    void aSampleAskedForBeforeAnOpenDoesNotReplaceItsInput();
    void mapPaneNeverKeepsAnOldImage();
    void transformerDatasetAndAdequacyTabsNeedNoSampling();
    void photoOnTorchvisionVitWithItsPreprocessing();
    void captionerWordMapFollowsTheStep();  // near the end: it moves the page to scenes64
    void importedCaptionerShowsItsWords();  // last: it moves the page to scenes64
    void cleanupTestCase();

private:
    void waitForTrace();
    AttentionPage* m_page = nullptr;
};

void TestAttentionPage::initTestCase() {
    m_page = shownAttentionPage();
    QVERIFY(QTest::qWaitForWindowExposed(m_page));
    QVERIFY2(!m_page->bundledFolder().isEmpty(), "bundled models not found");
    waitForTrace();
}

void TestAttentionPage::waitForTrace() {
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isBusy(), 60'000);
    QVERIFY2(m_page->canvas()->trace().has_value(), "no trace was drawn");
}

namespace {

// The user's own images, FOLDER/CLASS/IMAGE.png, class folders named by the model's classes
// ("Sandal") or their index ("0"): the first `count` test canvases of translated-fashion60.
bool writeImageFolder(const QString& root, int count) {
    auto data = openDataset("translated-fashion60");
    if (!data) return false;
    QStringList classNames;
    for (const auto& name : (*data)->info().classNames) classNames << QString::fromStdString(name);
    for (int i = 0; i < count; ++i) {
        const auto s = (*data)->sample(Split::Test, i);
        const QString named = s.label % 2 ? QString::number(s.label) : classNames[s.label];
        const QString folder = named.contains(QLatin1Char('/')) ? QString::number(s.label) : named;
        if (!QDir(root).mkpath(folder) ||
            !saveImagePng(s.image, QStringLiteral("%1/%2/%3.png").arg(root, folder).arg(i).toStdString()).ok())
            return false;
    }
    return true;
}

}  // namespace

void TestAttentionPage::imagesTabBrowsesAnImageFolder() {
    // The Images tab lists a folder of the user's images beside the datasets; a thumbnail opens
    // that image on the canvas under its folder's name, and the folder stays for the next model.
    QTemporaryDir dir;
    QVERIFY(writeImageFolder(dir.path(), 7));
    auto* images = m_page->imagePanel();
    const QStringList before = images->datasets();
    QVERIFY(!images->addImageFolder(dir.path() + QStringLiteral("/missing")).isEmpty());
    QCOMPARE(images->addImageFolder(dir.path()), QString());
    QCOMPARE(images->dataset(), QDir::cleanPath(dir.path()));
    QCOMPARE(images->datasets(), before);  // folders are not datasets for the other tabs
    QTRY_COMPARE_WITH_TIMEOUT(images->shownCount(), 7, 30'000);
    auto* thumbs = images->findChild<QListWidget*>(QStringLiteral("thumbnails"));
    QVERIFY(thumbs);
    QSignalSpy chosen(images, &ImagePanel::sampleChosen);
    thumbs->itemClicked(thumbs->item(3));
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QDir::cleanPath(dir.path()));
    QCOMPARE(chosen.at(0).at(1).toLongLong(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() &&
                                 QString::fromStdString(m_page->canvas()->trace()->imageId).startsWith(QDir::cleanPath(dir.path())),
                             60'000);
    waitForTrace();
    // A re-opened model keeps the folder in the list.
    images->setModelShape(60, 1, QString());
    QVERIFY(images->findChild<QComboBox*>(QStringLiteral("datasetCombo"))->findData(QDir::cleanPath(dir.path())) >= 0);
}

void TestAttentionPage::datasetTabComparesOnAnImageFolder() {
    auto* panel = m_page->comparisonPanel();
    auto data = openDataset("translated-fashion60");
    QVERIFY2(data.ok(), data.error().c_str());
    QTemporaryDir dir;
    QVERIFY(writeImageFolder(dir.path(), 12));
    QCOMPARE(panel->addImageFolder(dir.path()), QString());
    QCOMPARE(panel->dataset(), QDir::cleanPath(dir.path()));
    QVERIFY(!panel->addImageFolder(dir.path() + QStringLiteral("/missing")).isEmpty());
    panel->setLimit(12);
    panel->findChild<QPushButton*>(QStringLiteral("compareButton"))->click();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->comparison() && panel->comparison()->report.dataset == QDir::cleanPath(dir.path()).toStdString(),
                              qPrintable(panel->summaryText()), 120'000);
    const DatasetComparison c = *panel->comparison();
    QCOMPARE(int(c.report.labels.size()), 12);
    // Every image keeps its true class, whichever way its folder names it.
    std::vector<int> truth;
    for (int i = 0; i < 12; ++i) truth.push_back((*data)->sample(Split::Test, i).label);
    std::vector<int> labels = c.report.labels;
    std::sort(labels.begin(), labels.end());
    std::sort(truth.begin(), truth.end());
    QCOMPARE(labels, truth);
}

void TestAttentionPage::importedCaptionerShowsItsWords() {
    // A user's TorchScript captioner (samples/torchscript/sat_captioner.pt): its steps are its
    // words, each with a map over its 8x8 grid, and its one rule is caption.
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/../torchscript/sat_captioner.pt"));
    auto opened = [this] {
        return m_page->canvas()->trace() &&
               QString::fromStdString(m_page->canvas()->trace()->modelId).startsWith(QStringLiteral("torchscript/sat_captioner"));
    };
    QTRY_VERIFY2_WITH_TIMEOUT(opened(), qPrintable(m_page->canvas()->message()), 60'000);
    waitForTrace();
    QCOMPARE(m_page->toolbar()->rule(), QStringLiteral("caption"));
    QVERIFY(!m_page->setRule(QStringLiteral("argmax")));
    const auto trace = *m_page->canvas()->trace();
    QVERIFY(trace.steps.size() >= 2);
    QVERIFY(!trace.steps.front().token.empty());
    QCOMPARE(trace.steps.front().grid->rows, 8);
    QVERIFY(!trace.output.text.empty());
    const auto words = m_page->captionStrip()->words();
    QVERIFY2(!words.isEmpty() && words.front() == QString::fromStdString(trace.steps.front().token),
             qPrintable(words.join(QLatin1Char(' '))));
}

void TestAttentionPage::aSampleAskedForBeforeAnOpenDoesNotReplaceItsInput() {
    // The atlas opens a dataset's image with openAt while a sample asked for earlier (the page's
    // own, another dataset) is still on its way: that sample arrives first and must not become
    // the input the opened model is shown on.
    waitForTrace();
    const QString vit = m_page->bundledFolder() + QStringLiteral("/vit-translated-fashion60.pt");
    m_page->openSample(QStringLiteral("translated-fashion60"), 4);
    m_page->openAt(vit, QStringLiteral("translated-digits60"), 7, QStringLiteral("head:0"), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isBusy() && m_page->canvas()->trace() &&
                                 QString::fromStdString(m_page->canvas()->trace()->modelId).startsWith(QStringLiteral("vit")),
                             60'000);
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->imageId), QStringLiteral("translated-digits60:test:7"));
    QTest::qWait(200);  // nothing later replaces it
    QVERIFY(!m_page->isBusy());
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->imageId), QStringLiteral("translated-digits60:test:7"));
}

void TestAttentionPage::attributionMapBesideAttention() {
    // Saccade's ViT on a test sample under rollout, its gradient-weighted rollout beside it: both
    // canvases, one colour scale, the figures in the row; Grad-CAM is refused in one line on the
    // map's canvas; alone, the attention canvas gives way.
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/vit-translated-fashion60.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() && QString::fromStdString(m_page->canvas()->trace()->modelId)
                                                              .startsWith(QStringLiteral("vit")),
                             60'000);
    m_page->openSample(QStringLiteral("translated-fashion60"), 3);
    QVERIFY(m_page->setRule(QStringLiteral("rollout")));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->rule == "rollout" && m_page->canvas()->trace()->imageId == "translated-fashion60:test:3", 30'000);
    waitForTrace();
    auto* view = m_page->attributionView();
    QVERIFY(!view->canvas()->isVisible());
    QVERIFY(view->setMethod(QStringLiteral("gradient-rollout")));
    QTRY_VERIFY_WITH_TIMEOUT(view->map().has_value(), 30'000);
    QVERIFY(view->canvas()->isVisible() && m_page->canvas()->isVisible());
    QVERIFY2(view->figuresText().contains(QStringLiteral("in box")) && view->figuresText().contains(QStringLiteral("pointing hit")),
             qPrintable(view->figuresText()));
    QCOMPARE(view->map()->rows, 6);  // the attention's 6x6 patches: both maps have the same cells
    QCOMPARE(view->canvas()->trace()->steps.size(), std::size_t(1));
    // Issue 52 item 5: by default each map on its own scale (an attribution is not drawn black
    // beside an attention that tops out higher); one scale for both on request.
    QVERIFY(!view->sharedScale());
    QCOMPARE(view->canvas()->colourScaleMax(), view->canvas()->stepMax());
    QCOMPARE(m_page->canvas()->colourScaleMax(), m_page->canvas()->stepMax());
    QVERIFY(view->canvas()->stepMax() != m_page->canvas()->stepMax());
    {
        // Issue 52 item 6: Export > View writes what is on screen: both panes side by side.
        QCOMPARE(m_page->shownCanvases().size(), 2);
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("both.png")), svg = dir.filePath(QStringLiteral("both.svg"));
        ImageExportOptions o;
        o.scale = 4;
        QCOMPARE(exportViewPng(m_page->shownCanvases(), png, o), QString());
        const QImage both(png), one = m_page->canvas()->renderToImage(4);
        QCOMPARE(both.width(), one.width() + view->canvas()->renderToImage(4).width() + 8);
        QCOMPARE(QImage(png).pixelColor(one.width() + 8 + one.width() / 2, one.height() / 2),
                 view->canvas()->renderToImage(4).pixelColor(one.width() / 2, one.height() / 2));  // the map, right of the gap
        QCOMPARE(exportViewSvg(m_page->shownCanvases(), svg, o), QString());
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains(QStringLiteral("width=\"%1\"").arg(2 * 60 * 4 + 8).toUtf8()));
    }
    view->setSharedScale(true);
    const double shared = m_page->canvas()->colourScaleMax();
    QCOMPARE(view->canvas()->colourScaleMax(), shared);
    QCOMPARE(shared, std::max(m_page->canvas()->stepMax(), view->canvas()->stepMax()));
    m_page->scrubber()->setCurrentStep(3);  // the last layer: the shared scale follows the step
    QCOMPARE(m_page->canvas()->colourScaleMax(), std::max(m_page->canvas()->stepMax(), view->canvas()->stepMax()));
    QCOMPARE(view->canvas()->colourScaleMax(), m_page->canvas()->colourScaleMax());
    if (qEnvironmentVariableIsSet("SACCADE_SCREENSHOT_DIR"))
        m_page->grab().save(qEnvironmentVariable("SACCADE_SCREENSHOT_DIR") + QStringLiteral("/attention-attribution.png"));
    // Grad-CAM is greyed out on the ViT, the reason in its tooltip; choosing it is refused.
    QVERIFY(!view->setMethod(QStringLiteral("gradcam")));
    auto* combo = m_page->findChild<QComboBox*>(QStringLiteral("mapCombo"));
    QVERIFY(combo);
    const int gradcam = combo->findData(QStringLiteral("gradcam"));
    QVERIFY(!qobject_cast<QStandardItemModel*>(combo->model())->item(gradcam)->isEnabled());
    QVERIFY2(combo->itemData(gradcam, Qt::ToolTipRole).toString().contains(QStringLiteral("no convolutional grid for Grad-CAM")),
             qPrintable(combo->itemData(gradcam, Qt::ToolTipRole).toString()));
    QVERIFY(qobject_cast<QStandardItemModel*>(combo->model())->item(combo->findData(QStringLiteral("gradient")))->isEnabled());
    QVERIFY(view->setMethod(QStringLiteral("integrated-gradients")));
    view->setSideBySide(false);
    QTRY_VERIFY_WITH_TIMEOUT(view->map().has_value(), 30'000);
    QVERIFY(!m_page->canvas()->isVisible());
    QVERIFY(view->figuresText().contains(QStringLiteral("completeness")));
    QCOMPARE(view->canvas()->colourScaleMax(), view->canvas()->stepMax());  // alone: its own scale
    view->setSharedScale(false);
    QVERIFY(view->setMethod(QString()));  // back to the attention alone
    QVERIFY(m_page->canvas()->isVisible() && !view->canvas()->isVisible());
}

// Issue 52 item 4: the map pane showed the previous image (and its map) after a map failed and the
// image changed; now a new request shows the new picture at once, and a failure an empty pane
// with its reason.
void TestAttentionPage::mapPaneNeverKeepsAnOldImage() {
    auto* view = m_page->attributionView();
    QVERIFY(view->setMethod(QStringLiteral("gradient")));
    QTRY_VERIFY_WITH_TIMEOUT(view->map().has_value() && !view->busy(), 30'000);
    m_page->openSample(QStringLiteral("translated-fashion60"), 5);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->imageId == "translated-fashion60:test:5", 30'000);
    QCOMPARE(view->canvas()->image(), m_page->canvas()->image());  // asked for: the new picture, whatever the map
    QTRY_VERIFY_WITH_TIMEOUT(view->map().has_value() && !view->busy(), 30'000);
    auto* service = m_page->findChild<saccade::ui::ModelService*>();
    QVERIFY(service);
    const QString reason = QStringLiteral("gradient: the model gives no gradient for this input, a long reason that wraps");
    Q_EMIT service->attributionFailed(reason);
    QVERIFY(view->canvas()->image().isNull());  // not the last image's picture
    QVERIFY(!view->canvas()->trace().has_value());
    QCOMPARE(view->canvas()->message(), reason);
    QVERIFY(view->setMethod(QString()));
}

void TestAttentionPage::captionerWordMapFollowsTheStep() {
    // The soft captioner: the map is the shown step's word's, and moves with the step.
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/caption-soft-scenes64.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() && QString::fromStdString(m_page->canvas()->trace()->modelId)
                                                              .startsWith(QStringLiteral("caption/")),
                             60'000);
    QVERIFY(m_page->setRule(QStringLiteral("soft")));
    m_page->openSample(QStringLiteral("scenes64"), 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->imageId == "scenes64:test:0" && m_page->canvas()->trace()->rule == "soft",
                             30'000);
    waitForTrace();
    const auto trace = *m_page->canvas()->trace();
    QVERIFY(trace.steps.size() >= 3);
    auto* view = m_page->attributionView();
    m_page->scrubber()->setCurrentStep(1);
    QVERIFY(view->setMethod(QStringLiteral("gradient-x-input")));
    QTRY_VERIFY_WITH_TIMEOUT(view->map().has_value() && view->map()->step == 1, 30'000);
    QCOMPARE(view->map()->word, trace.steps[1].token);
    QVERIFY2(view->figuresText().startsWith(QStringLiteral("'%1'").arg(QString::fromStdString(trace.steps[1].token))),
             qPrintable(view->figuresText()));
    m_page->scrubber()->setCurrentStep(2);
    QTRY_VERIFY_WITH_TIMEOUT(view->map().has_value() && view->map()->step == 2, 30'000);
    QCOMPARE(view->map()->word, trace.steps[2].token);
    if (qEnvironmentVariableIsSet("SACCADE_SCREENSHOT_DIR"))
        m_page->grab().save(qEnvironmentVariable("SACCADE_SCREENSHOT_DIR") + QStringLiteral("/attention-caption-attribution.png"));
    QVERIFY(view->setMethod(QString()));
}

void TestAttentionPage::importedTransformerOffersRolloutAndHeads() {
    // A user's TorchScript ViT (samples/torchscript): its steps are its layers, its rules are
    // the transformer's, and the card says it was imported.
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/../torchscript/vit_model.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() && QString::fromStdString(m_page->canvas()->trace()->modelId)
                                                              .startsWith(QStringLiteral("torchscript/")),
                             60'000);
    waitForTrace();
    QCOMPARE(m_page->toolbar()->rule(), QStringLiteral("attention"));
    QVERIFY(!m_page->setRule(QStringLiteral("argmax")));
    QVERIFY(!m_page->setRule(QStringLiteral("sample")));
    const auto raw = *m_page->canvas()->trace();
    QCOMPARE(int(raw.steps.size()), 3);
    QCOMPARE(raw.steps[2].grid->rows, 6);
    QVERIFY(m_page->setRule(QStringLiteral("rollout")));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->rule == "rollout", 30'000);
    waitForTrace();
    const auto rolled = *m_page->canvas()->trace();
    QCOMPARE(rolled.output.label, raw.output.label);  // the map changes, not the answer
    QVERIFY(rolled.steps[2].grid->probs != raw.steps[2].grid->probs);
    QVERIFY(m_page->setRule(QStringLiteral("head:0")));  // heads count from 0
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->rule == "head:0", 30'000);
    QCOMPARE(m_page->toolbar()->rule(), QStringLiteral("head:0"));
    // Its 4 heads bound the box: head 3 is the last, head 4 is refused, and the box offers no more.
    QCOMPARE(m_page->toolbar()->kRange(QStringLiteral("head")), (QPair<int, int>{0, 3}));
    // Every rule's name is shown whole in the rule box (none elided).
    auto* ruleBox = m_page->toolbar()->findChild<QComboBox*>(QStringLiteral("ruleCombo"));
    QVERIFY(ruleBox);
    for (int i = 0; i < ruleBox->count(); ++i)
        QVERIFY2(ruleBox->fontMetrics().horizontalAdvance(ruleBox->itemText(i)) <= ruleBox->minimumSizeHint().width() - 20,
                 qPrintable(ruleBox->itemText(i)));
    auto* k = m_page->toolbar()->findChild<QSpinBox*>(QStringLiteral("ruleK"));
    QVERIFY(k);
    QCOMPARE(k->maximum(), 3);
    QVERIFY(!m_page->setRule(QStringLiteral("head:4")));
    QVERIFY(m_page->setRule(QStringLiteral("head:3")));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->rule == "head:3", 30'000);
    k->setValue(5);  // typed past the last head: the box holds at 3
    QCOMPARE(m_page->toolbar()->rule(), QStringLiteral("head:3"));
    QVERIFY(m_page->errorBanner()->isHidden());
}

void TestAttentionPage::transformerDatasetAndAdequacyTabsNeedNoSampling() {
    // The imported ViT is open (previous function): the Dataset tab compares its rules, not sampled
    // runs it does not have, and the Adequacy tab measures the signals that need no sampling.
    auto* panel = m_page->comparisonPanel();
    QCOMPARE(panel->dataset(), QStringLiteral("translated-fashion60"));
    panel->setLimit(20);
    panel->findChild<QPushButton*>(QStringLiteral("compareButton"))->click();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->ruleComparison() != nullptr, qPrintable(panel->summaryText()), 120'000);
    QVERIFY(!panel->comparison());
    const RuleComparison c = *panel->ruleComparison();
    QCOMPARE(c.images, qint64(20));
    QCOMPARE(panel->accuracyTable()->rowCount(), 3);
    QCOMPARE(panel->accuracyTable()->columnCount(), 5);
    const QStringList rules{QStringLiteral("attention"), QStringLiteral("head:0"), QStringLiteral("rollout")};
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(panel->accuracyTable()->item(r, 0)->text(), rules[r]);
        QCOMPARE(panel->accuracyTable()->item(r, 3)->text(), QStringLiteral("%1%").arg(100 * *c.rules[size_t(r)].massInBox, 0, 'f', 2));
    }
    QCOMPARE(panel->disagreementTable()->rowCount(), 3);  // every pair of rules
    QCOMPARE(panel->disagreementTable()->item(1, 2)->text(), QString::number(c.agreement[1].same));
    QVERIFY(!panel->kChart()->isVisibleTo(panel));
    QTemporaryDir dir;
    QCOMPARE(panel->exportJson(dir.filePath(QStringLiteral("c.json"))), QString());
    QFile json(dir.filePath(QStringLiteral("c.json")));
    QVERIFY(json.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(json.readAll()).object().value(QStringLiteral("schema")).toString(),
             QStringLiteral("saccade.compare-rules"));

    auto* adequacy = m_page->adequacyPanel();
    adequacy->setLimit(10);
    adequacy->findChild<QPushButton*>(QStringLiteral("measureButton"))->click();
    QTRY_VERIFY2_WITH_TIMEOUT(adequacy->report() != nullptr, qPrintable(adequacy->summaryText()), 120'000);
    const AdequacyReport& r = *adequacy->report();
    QCOMPARE(r.runs, 0);
    QCOMPARE(r.shifts, kDefaultShifts);
    QVERIFY(!r.curves[int(AdequacySignal::Agreement)].available);
    QVERIFY(r.curves[int(AdequacySignal::ShiftAgreement)].available);
    QVERIFY2(adequacy->summaryText().contains(QStringLiteral("no sampled runs")), qPrintable(adequacy->summaryText()));
}

void TestAttentionPage::photoOnTorchvisionVitWithItsPreprocessing() {
    // torchvision's ViT (samples/torchscript/torchvision_vit.pt) declares Resize(256),
    // CenterCrop(224) and ImageNet normalisation: a 451x300 photo comes in as 224x224, the Model
    // tab says what is applied, and its fields reopen the model with the user's resize.
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/../torchscript/torchvision_vit.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() && m_page->canvas()->trace()->modelId == "torchscript/torchvision_vit.pt",
                             60'000);
    waitForTrace();
    auto* applied = m_page->findChild<QLabel*>(QStringLiteral("appliedPreprocessing"));
    QVERIFY(applied);
    QVERIFY2(applied->text().contains(QStringLiteral("resize 256, centre crop 224; normalised: imagenet")), qPrintable(applied->text()));
    QTemporaryDir dir;
    const QString photo = dir.filePath(QStringLiteral("wide.png"));
    QImage image(451, 300, QImage::Format_RGB32);
    image.fill(Qt::darkCyan);
    QVERIFY(image.save(photo));
    m_page->openImageFile(photo);
    waitForTrace();
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->imageId), photo);
    QCOMPARE(m_page->canvas()->image().width(), 224);
    QCOMPARE(int(m_page->canvas()->trace()->steps.back().grid->probs.size()), 196);
    auto* resize = m_page->findChild<QLineEdit*>(QStringLiteral("resizeField"));
    auto* apply = m_page->findChild<QPushButton*>(QStringLiteral("applyPreprocessing"));
    QVERIFY(resize && apply);
    resize->setText(QStringLiteral("12abc"));
    apply->click();
    auto* error = m_page->findChild<QLabel*>(QStringLiteral("preprocessingError"));
    QVERIFY(error);
    QVERIFY(!error->isHidden());
    QVERIFY2(error->text().startsWith(QStringLiteral("Resize")), qPrintable(error->text()));
    QVERIFY(applied->text().contains(QStringLiteral("resize 256")));  // nothing reopened
    resize->setText(QStringLiteral("300"));
    apply->click();
    QTRY_VERIFY_WITH_TIMEOUT(applied->text().contains(QStringLiteral("resize 300, centre crop 224")), 60'000);
    waitForTrace();
    QCOMPARE(resize->text(), QStringLiteral("300"));  // the field shows what the model was opened with
}

void TestAttentionPage::cleanupTestCase() { delete m_page; }

void TestAttentionPage::datasetComparisonListsRulesAndDisagreements() {
    auto* panel = m_page->comparisonPanel();
    QCOMPARE(panel->dataset(), QStringLiteral("translated-fashion60"));  // the RAM's dataset
    panel->setLimit(150);
    panel->findChild<QPushButton*>(QStringLiteral("compareButton"))->click();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->comparison() != nullptr, qPrintable(panel->summaryText()), 120'000);
    const DatasetComparison c = *panel->comparison();
    QCOMPARE(int(c.report.labels.size()), 150);
    QCOMPARE(panel->accuracyTable()->rowCount(), 8);
    for (int r = 0; r < 8; ++r) {
        const QString rule = panel->accuracyTable()->item(r, 0)->text();
        QCOMPARE(panel->accuracyTable()->item(r, 3)->text() == QStringLiteral("yes"), rule == QStringLiteral("sample"));
        QCOMPARE(panel->accuracyTable()->item(r, 1)->text(),
                 QStringLiteral("%1%").arg(100 * c.report.rules[size_t(r)].accuracy, 0, 'f', 2));
    }
    QVERIFY2(panel->summaryText().contains(QStringLiteral("reinforce")), qPrintable(panel->summaryText()));
    // Accuracy against K: one point per K with its interval, in percent.
    const auto points = panel->kChart()->meanPoints();
    QCOMPARE(points.size(), 5);
    QCOMPARE(points[0].x(), 1.0);
    QCOMPARE(points[4].x(), 20.0);
    QVERIFY(qAbs(points[3].y() - 100 * c.kCurve[3].accuracy) < 1e-9);
    // The browser lists exactly the disagreeing images; clicking one opens it.
    auto* table = panel->disagreementTable();
    QCOMPARE(table->rowCount(), int(c.disagree.size()));
    QVERIFY(table->rowCount() > 0);
    const qint64 index = table->item(0, 0)->data(Qt::UserRole).toLongLong();
    QCOMPARE(index, c.disagree[0]);
    Q_EMIT table->cellClicked(0, 1);
    QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(m_page->canvas()->trace()->imageId),
                              QStringLiteral("translated-fashion60:test:%1").arg(index), 30'000);
    waitForTrace();
    // It opens under sample with the seed the comparison drew it with: the listed answer.
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->rule), QStringLiteral("sample"));
    QCOMPARE(m_page->canvas()->trace()->seed, evaluationSeed(c.seed, index));
    QCOMPARE(m_page->canvas()->trace()->output.label, rulePredictions(c.report, "sample")[size_t(index)]);
    // Exports.
    QTemporaryDir dir;
    const QString d = dir.path() + QLatin1Char('/');
    QCOMPARE(panel->exportAccuracy(d + QStringLiteral("a.csv")), QString());
    QCOMPARE(fileLines(d + QStringLiteral("a.csv")).size(), 9);
    QCOMPARE(panel->exportAccuracy(d + QStringLiteral("a.svg")), QString());
    QCOMPARE(panel->exportKCurve(d + QStringLiteral("k.csv")), QString());
    QCOMPARE(fileLines(d + QStringLiteral("k.csv")).size(), 6);
    QCOMPARE(panel->exportKCurve(d + QStringLiteral("k.png")), QString());
    QVERIFY(startsWith(d + QStringLiteral("k.png"), QByteArray("\x89PNG")));
    QCOMPARE(panel->exportDisagreements(d + QStringLiteral("x.csv")), QString());
    QCOMPARE(fileLines(d + QStringLiteral("x.csv")).size(), 1 + int(c.disagree.size()));
    QCOMPARE(panel->exportJson(d + QStringLiteral("c.json")), QString());
    QFile json(d + QStringLiteral("c.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(json.readAll()).object().value(QStringLiteral("schema")).toString(),
             QStringLiteral("saccade.compare-dataset"));
}

void TestAttentionPage::runsPanelComparesSampledRunsWithArgmax() {
    m_page->openSample(QStringLiteral("translated-fashion60"), 12);
    QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(m_page->canvas()->trace()->imageId),
                              QStringLiteral("translated-fashion60:test:12"), 30'000);
    m_page->toolbar()->setSeed(5);
    waitForTrace();
    auto* runs = m_page->runsPanel();
    runs->setRuns(60);
    QVERIFY(!runs->shownSet());
    auto* button = runs->findChild<QPushButton*>(QStringLiteral("runButton"));
    QVERIFY(button && button->isEnabled());
    button->click();
    QTRY_VERIFY2_WITH_TIMEOUT(runs->shownSet() != nullptr, qPrintable(runs->summaryText()), 60'000);
    const RunSet& set = *runs->shownSet();
    QCOMPARE(int(set.runs.size()), 60);
    QCOMPARE(set.seed, 5u);
    QVERIFY(set.soft.has_value());
    QVERIFY2(runs->summaryText().contains(QStringLiteral("agreeing with argmax")), qPrintable(runs->summaryText()));
    QVERIFY(m_page->canvas()->hasVisits());
    // The path table lists the most common paths (at most 50) with their counts; the bars sum to one.
    const RunStats stats = computeRunStats(set);
    auto* table = runs->pathTable();
    QCOMPARE(table->rowCount(), std::min(50, int(stats.paths.size())));
    int all = 0;
    for (const auto& p : stats.paths) all += p.count;
    QCOMPARE(all, 60);
    for (int r = 0; r < table->rowCount(); ++r) QCOMPARE(table->item(r, 0)->text().toInt(), stats.paths[size_t(r)].count);
    const QVector<double> bars = runs->outputChart()->shownValues();
    QVERIFY(std::accumulate(bars.begin(), bars.end(), 0.0) <= 1.0 + 1e-9);
    const QString argmaxName = QString::fromStdString(set.classNames[size_t(set.deterministic.output.label)]);
    if (stats.labelCounts[size_t(set.deterministic.output.label)] > 0)
        // Named "(argmax)" on a line of its own, or bold where the chart is too short for two lines.
        QVERIFY2(runs->outputChart()->shownLabels().contains(argmaxName.toHtmlEscaped() + QStringLiteral("<br>(argmax)")) ||
                     runs->outputChart()->shownLabels().contains(QStringLiteral("<b>%1</b>").arg(argmaxName.toHtmlEscaped())),
                 qPrintable(runs->outputChart()->shownLabels().join(QLatin1Char('|'))));
    QCOMPARE(runs->entropyChart()->meanPoints().size(), 4);
    // A path loads its first run's trace: the sample rule with that run's seed, on those cells.
    const quint64 seed = table->item(0, 0)->data(Qt::UserRole).toULongLong();
    const auto run = std::find_if(set.runs.begin(), set.runs.end(), [&](const RunRecord& r) { return r.seed == seed; });
    QVERIFY(run != set.runs.end());
    Q_EMIT table->cellClicked(0, 2);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->seed == seed, 30'000);
    waitForTrace();
    const auto& trace = *m_page->canvas()->trace();
    QCOMPARE(QString::fromStdString(trace.rule), QStringLiteral("sample"));
    for (size_t t = 0; t < trace.steps.size(); ++t) QCOMPARE(trace.steps[t].chosenCells.at(0), run->cells[t]);
    QCOMPARE(trace.output.label, run->label);
    // Loading one run does not change the run set: Run again repeats seeds 5..64.
    QCOMPARE(m_page->toolbar()->seed(), seed);
    button->click();
    QTRY_VERIFY_WITH_TIMEOUT(!runs->isRunning() && runs->shownSet(), 60'000);
    QCOMPARE(runs->shownSet()->seed, quint64(5));
    QCOMPARE(runs->shownSet()->runs.front().seed, quint64(5));
    // A new image forgets the runs.
    m_page->openSample(QStringLiteral("translated-fashion60"), 13);
    QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(m_page->canvas()->trace()->imageId),
                              QStringLiteral("translated-fashion60:test:13"), 30'000);
    QVERIFY(!runs->shownSet());
    QVERIFY(!m_page->canvas()->hasVisits());
}

void TestAttentionPage::runsStreamInAndExport() {
    auto* service = m_page->findChild<ModelService*>();
    QVERIFY(service);
    QSignalSpy partial(service, &ModelService::runsPartial);
    auto* runs = m_page->runsPanel();
    runs->setRuns(2500);
    runs->findChild<QPushButton*>(QStringLiteral("runButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(runs->shownSet() && runs->shownSet()->runs.size() == 2500 && !runs->isRunning(), 60'000);
    // Statistics arrived after 1,000 and 2,000 runs, before the whole set.
    QCOMPARE(partial.count(), 2);
    QCOMPARE(partial[0][1].value<RunStats>().runs, 1000);
    QCOMPARE(partial[1][1].value<RunStats>().runs, 2000);
    QCOMPARE(partial[1][2].toInt(), 2500);
    const RunSet set = *runs->shownSet();
    for (size_t i : {0u, 999u, 1000u, 2499u}) QCOMPARE(set.runs[i].seed, set.seed + i);
    const RunStats stats = computeRunStats(set);

    // Clicking an output's bar loads the first run with that output.
    const QVector<int> classes = runs->outputChart()->barClasses();
    QVERIFY(!classes.isEmpty());
    const int label = classes.back();  // the top bar
    const auto first = std::find_if(set.runs.begin(), set.runs.end(), [&](const RunRecord& r) { return r.label == label; });
    QVERIFY(first != set.runs.end());
    Q_EMIT runs->outputChart()->barSet()->clicked(int(classes.size()) - 1);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace()->seed == first->seed, 30'000);
    waitForTrace();
    QCOMPARE(m_page->canvas()->trace()->output.label, label);

    // Exports: each chart as PNG, SVG and CSV, the paths as CSV, the run set as JSON.
    QTemporaryDir dir;
    const QString d = dir.path() + QLatin1Char('/');
    const QRect chartBefore = runs->outputChart()->geometry();
    QCOMPARE(runs->exportOutputs(d + QStringLiteral("o.png")), QString());
    QVERIFY(startsWith(d + QStringLiteral("o.png"), QByteArray("\x89PNG")));
    // A figure, not a bare grab: at least 800x450 for the chart, with a title band above it and a
    // caption below, and the chart in the panel is back at its own size.
    const QImage figure(d + QStringLiteral("o.png"));
    QVERIFY2(figure.width() >= 800 && figure.height() >= 450 + 40, qPrintable(QStringLiteral("%1x%2").arg(figure.width()).arg(figure.height())));
    QCOMPARE(runs->outputChart()->geometry(), chartBefore);
    if (qEnvironmentVariableIsSet("SACCADE_KEEP_FIGURE")) figure.save(qEnvironmentVariable("SACCADE_KEEP_FIGURE"));
    QCOMPARE(runs->exportOutputs(d + QStringLiteral("o.svg")), QString());
    const QString svg = fileLines(d + QStringLiteral("o.svg")).join(QString());
    QVERIFY(svg.contains(QStringLiteral("<svg")));
    QVERIFY2(svg.contains(QStringLiteral("Outputs of %1 sampled runs").arg(stats.runs)), "the title is in the figure");
    QVERIFY(svg.contains(QStringLiteral("share of runs")));  // the value axis is named
    QCOMPARE(runs->exportOutputs(d + QStringLiteral("o.csv")), QString());
    const QStringList outputs = fileLines(d + QStringLiteral("o.csv"));
    QCOMPARE(outputs.size(), 1 + int(set.classNames.size()));
    QCOMPARE(outputs[1 + label].split(QLatin1Char(','))[2].toInt(), stats.labelCounts[size_t(label)]);
    QCOMPARE(runs->exportEntropy(d + QStringLiteral("e.csv")), QString());
    const QStringList entropy = fileLines(d + QStringLiteral("e.csv"));
    QCOMPARE(entropy.size(), 1 + 4);
    QVERIFY(qAbs(entropy[1].split(QLatin1Char(','))[1].toDouble() - stats.entropyMean[0]) < 1e-4);
    QCOMPARE(runs->exportPaths(d + QStringLiteral("p.csv")), QString());
    QCOMPARE(fileLines(d + QStringLiteral("p.csv")).size(), 1 + int(stats.paths.size()));
    QCOMPARE(runs->exportPaths(d + QStringLiteral("p.png")), QString());
    QVERIFY(startsWith(d + QStringLiteral("p.png"), QByteArray("\x89PNG")));
    QCOMPARE(runs->exportRunSet(d + QStringLiteral("r.json")), QString());
    QFile json(d + QStringLiteral("r.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const auto doc = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(doc.value(QStringLiteral("schema")).toString(), QStringLiteral("saccade.runset"));
    QVERIFY(!runs->exportOutputs(d + QStringLiteral("o.bmp")).isEmpty());
    QVERIFY(!runs->exportRunSet(d + QStringLiteral("r.csv")).isEmpty());
}

// Issue 52 item 9: after a model switch nothing of the previous model stays (its runs' bars and
// labels, its step), and each model opens under the rule it was trained with.
void TestAttentionPage::anotherModelStartsAfreshUnderItsTrainingRule() {
    auto open = [this](const QString& file, const QString& modelId) {
        m_page->openModel(m_page->bundledFolder() + QLatin1Char('/') + file);
        QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() &&
                                     QString::fromStdString(m_page->canvas()->trace()->modelId).startsWith(modelId),
                                 60'000);
        waitForTrace();
    };
    open(QStringLiteral("patch-soft-fashion60.pt"), QStringLiteral("patch/soft/"));
    auto* runs = m_page->runsPanel();
    runs->setRuns(40);
    runs->findChild<QPushButton*>(QStringLiteral("runButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(runs->shownSet() && runs->shownSet()->runs.size() == 40 && !runs->isRunning(), 60'000);
    QVERIFY(!runs->outputChart()->shownCategories().isEmpty());
    m_page->scrubber()->setCurrentStep(3);
    QCOMPARE(m_page->scrubber()->currentStep(), 3);

    open(QStringLiteral("patch-hard-fashion60.pt"), QStringLiteral("patch/hard/"));
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->rule), QStringLiteral("sample"));  // trained hard
    QCOMPARE(m_page->toolbar()->rule(), QStringLiteral("sample"));
    QCOMPARE(m_page->scrubber()->currentStep(), 0);
    QVERIFY(m_page->runsPanel()->outputChart()->shownCategories().isEmpty());
    QVERIFY(m_page->runsPanel()->outputChart()->shownValues().isEmpty());
    QVERIFY(m_page->runsPanel()->entropyChart()->meanPoints().isEmpty());

    m_page->scrubber()->setCurrentStep(3);
    open(QStringLiteral("caption-soft-scenes64.pt"), QStringLiteral("caption/"));
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->rule), QStringLiteral("soft"));  // not argmax
    QCOMPARE(m_page->scrubber()->currentStep(), 0);

    open(QStringLiteral("patch-soft-fashion60.pt"), QStringLiteral("patch/soft/"));
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->rule), QStringLiteral("soft"));
}

void TestAttentionPage::captionerShowsItsCaptionWordByWord() {
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/caption-soft-scenes64.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() && QString::fromStdString(m_page->canvas()->trace()->modelId)
                                                              .startsWith(QStringLiteral("caption/")),
                             60'000);
    waitForTrace();
    auto* strip = m_page->captionStrip();
    const int stripHeight = strip->height(), canvasHeight = m_page->canvas()->height();
    QVERIFY(m_page->setRule(QStringLiteral("beam")));  // the captioner's own rule
    waitForTrace();
    // Another caption and verdict: the strip (and so the canvas and its zoom) keep their size.
    QCOMPARE(strip->height(), stripHeight);
    QCOMPARE(m_page->canvas()->height(), canvasHeight);
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->rule).left(5), QStringLiteral("beam:"));
    // Greedy beside beam (the soft captioner's greedy rule is soft), and beam beside greedy.
    QVERIFY2(strip->companionText().startsWith(QStringLiteral("Beside it, soft:")), qPrintable(strip->companionText()));
    QVERIFY(m_page->setRule(QStringLiteral("argmax")));
    waitForTrace();
    const auto trace = *m_page->canvas()->trace();
    {
        auto model = loadAttentionModel((m_page->bundledFolder() + QStringLiteral("/caption-soft-scenes64.pt")).toStdString(), "cpu");
        QVERIFY(model.ok());
        const QStringList id = QString::fromStdString(trace.imageId).split(QLatin1Char(':'));  // scenes64:test:N
        QCOMPARE(id.size(), 3);
        auto scenes = openDataset(id[0].toStdString());
        QVERIFY(scenes.ok());
        const auto image = (*scenes)->sample(Split::Test, id[2].toLongLong()).image;
        auto beam = (*model)->trace(image, "beam:3", trace.seed, trace.imageId, trace.groundTruth);
        QVERIFY2(beam.ok(), beam.error().c_str());
        const QString text = strip->companionText();
        QVERIFY2(text.startsWith(QStringLiteral("Beside it, beam:3: <i>%1</i>").arg(QString::fromStdString(beam->output.text))),
                 qPrintable(text));
        QSignalSpy asked(strip, &CaptionStrip::ruleRequested);
        strip->findChild<QLabel*>(QStringLiteral("companionCaption"))->linkActivated(QStringLiteral("beam:3"));
        QCOMPARE(asked.count(), 1);
        waitForTrace();
        QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->rule), QStringLiteral("beam:3"));
        QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->output.text), QString::fromStdString(beam->output.text));
        QVERIFY(m_page->setRule(QStringLiteral("argmax")));
        waitForTrace();
    }
    QVERIFY(strip->isVisibleTo(m_page));
    // One word button per step, in the trace's order, ending in <end>.
    QStringList tokens;
    for (const auto& step : trace.steps) tokens << QString::fromStdString(step.token);
    QCOMPARE(strip->words(), tokens);
    QCOMPARE(tokens.last(), QStringLiteral("<end>"));
    QCOMPARE(tokens.mid(0, tokens.size() - 1).join(QLatin1Char(' ')), QString::fromStdString(trace.output.text));
    // The verdict compares the caption with the scene's references.
    QVERIFY(trace.groundTruth && !trace.groundTruth->references.empty());
    const bool valid = std::find(trace.groundTruth->references.begin(), trace.groundTruth->references.end(),
                                 trace.output.text) != trace.groundTruth->references.end();
    QVERIFY2(strip->verdict().contains(valid ? QStringLiteral("valid caption") : QStringLiteral("not a valid")),
             qPrintable(strip->verdict()));
    // Clicking a word moves every view to its step; the step panel names the word.
    auto buttons = strip->findChildren<QToolButton*>();
    QVERIFY(buttons.size() >= 3);
    buttons[2]->click();
    QCOMPARE(m_page->scrubber()->currentStep(), 2);
    QCOMPARE(m_page->canvas()->step(), 2);
    QVERIFY(buttons[2]->isChecked());
    // A word that names an object records which box it names.
    for (const auto& step : trace.steps)
        if (step.token == "circle" || step.token == "square" || step.token == "triangle" || step.token == "cross")
            QVERIFY(step.wordObject < int(trace.groundTruth->boxes.size()));
    // The Runs tab: per word, how often the sampled cell hit the object the word names.
    auto* runs = m_page->runsPanel();
    QVERIFY(!runs->wordTable()->isVisibleTo(runs));
    runs->setRuns(40);
    runs->findChild<QPushButton*>(QStringLiteral("runButton"))->click();
    QTRY_VERIFY2_WITH_TIMEOUT(runs->shownSet() && !runs->isRunning(), qPrintable(runs->summaryText()), 60'000);
    const RunStats runStats = computeRunStats(*runs->shownSet());
    QVERIFY(!runStats.wordHits.empty());
    auto* words = runs->wordTable();
    QVERIFY(words->isVisibleTo(runs));
    QCOMPARE(words->rowCount(), int(runStats.wordHits.size()));
    int uses = 0;  // the first word's uses, counted from the runs themselves
    for (const auto& run : runs->shownSet()->runs) {
        const auto runWords = splitWords(run.text);
        for (size_t w = 0; w < runWords.size() && w < run.wordHits.size(); ++w)
            uses += runWords[w] == runStats.wordHits[0].word && run.wordHits[w] >= 0;
    }
    QCOMPARE(words->item(0, 0)->text(), QString::fromStdString(runStats.wordHits[0].word));
    QCOMPARE(words->item(0, 2)->text().toInt(), uses);
    QCOMPARE(words->item(0, 1)->text(), QStringLiteral("%1%").arg(100 * runStats.wordHits[0].rate(), 0, 'f', 1));
    // A word the argmax caption uses is never "not used" (unscored words: "used, not scored").
    const QStringList argmaxWords = QString::fromStdString(runs->shownSet()->deterministic.output.text).split(QLatin1Char(' '));
    for (int r = 0; r < words->rowCount(); ++r)
        if (argmaxWords.contains(words->item(r, 0)->text()))
            QVERIFY2(words->item(r, 3)->text() != QStringLiteral("not used"), qPrintable(words->item(r, 0)->text()));
    // The summary is as tall as its wrapped text at the column's width: never cut mid-sentence.
    auto* summary = runs->findChild<QLabel*>(QStringLiteral("runsSummary"));
    runs->resize(260, runs->height());
    QTRY_VERIFY(summary->height() >= summary->heightForWidth(summary->width()));
    // The step chart names "<end>" (its axis reads HTML), and ksample:3 is 3 captions, not "x1 of 1 draws".
    QVERIFY(m_page->setRule(QStringLiteral("ksample:3")));
    waitForTrace();
    QVERIFY2(!m_page->infoPanel()->stepText().contains(QStringLiteral("draws")), qPrintable(m_page->infoPanel()->stepText()));
    QVERIFY2(m_page->infoPanel()->runText().contains(QStringLiteral("3 sampled captions")), qPrintable(m_page->infoPanel()->runText()));
    m_page->scrubber()->setCurrentStep(int(m_page->canvas()->trace()->steps.size()) - 1);
    QVERIFY2(m_page->infoPanel()->chart()->shownCategories().contains(QStringLiteral("&lt;end&gt;")),
             qPrintable(m_page->infoPanel()->chart()->shownCategories().join(QLatin1Char('|'))));
    QVERIFY(m_page->setRule(QStringLiteral("argmax")));
    waitForTrace();
    QTemporaryDir out;
    const QString csv = out.filePath(QStringLiteral("words.csv"));
    QCOMPARE(runs->exportWords(csv), QString());
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readLine().startsWith("word,class,uses,hits,hit_rate,runs,argmax_hit"));
    QCOMPARE(QString::fromUtf8(file.readAll()).count(QLatin1Char('\n')), int(runStats.wordHits.size()));
    // Back to the RAM the next test expects: a classifier's steps emit no word.
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/ram-translated-fashion60.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() && QString::fromStdString(m_page->canvas()->trace()->modelId)
                                                              .startsWith(QStringLiteral("ram/")),
                             60'000);
    waitForTrace();
    QVERIFY(!strip->isVisibleTo(m_page));
}

void TestAttentionPage::ramModelOffersItsRulesAndDrawsGlimpses() {
    QVERIFY(m_page->setRule(QStringLiteral("sample")));
    waitForTrace();
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/ram-translated-fashion60.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(m_page->canvas()->trace() &&
                                 QString::fromStdString(m_page->canvas()->trace()->modelId).startsWith(QStringLiteral("ram/")),
                             60'000);
    waitForTrace();
    // The patch rules argmax, soft, top-k and Gumbel do not apply; sample carried over.
    QVERIFY(!m_page->setRule(QStringLiteral("argmax")));
    QVERIFY(!m_page->setRule(QStringLiteral("soft")));
    QCOMPARE(m_page->toolbar()->rule(), QStringLiteral("sample"));
    const auto sampled = *m_page->canvas()->trace();
    QCOMPARE(QString::fromStdString(sampled.rule), QStringLiteral("sample"));
    QCOMPARE(int(sampled.steps.size()), 6);
    QVERIFY(sampled.steps[1].gaussian.has_value());
    QCOMPARE(int(sampled.steps[1].glimpses.size()), 3);  // g 12, k 3
    QCOMPARE(sampled.steps[1].glimpses[2].box.w, 48.0);
    m_page->scrubber()->setCurrentStep(1);
    QVERIFY2(m_page->infoPanel()->stepText().contains(QStringLiteral("policy: Gaussian")),
             qPrintable(m_page->infoPanel()->stepText()));
    QVERIFY(m_page->setRule(QStringLiteral("mean")));
    waitForTrace();
    const auto mean = *m_page->canvas()->trace();
    QVERIFY(m_page->infoPanel()->runText().contains(QStringLiteral("policy's mean")));
    QVERIFY(m_page->setRule(QStringLiteral("random")));
    waitForTrace();
    QVERIFY(!m_page->canvas()->trace()->steps[1].gaussian.has_value());
    QVERIFY(m_page->setRule(QStringLiteral("mean")));
    waitForTrace();
    for (size_t s = 0; s < mean.steps.size(); ++s)
        QCOMPARE(*m_page->canvas()->trace()->steps[s].chosenPoint, *mean.steps[s].chosenPoint);
}

void TestAttentionPage::opensOnTheBundledDefault() {
    const auto& trace = *m_page->canvas()->trace();
    // Issue 52 item 9: a model opens under its training rule (the default model was trained soft),
    // not under argmax.
    QCOMPARE(QString::fromStdString(trace.rule), QStringLiteral("soft"));
    QCOMPARE(int(trace.steps.size()), 4);
    QCOMPARE(trace.imageWidth, 60);
    QVERIFY(QString::fromStdString(trace.modelId).startsWith(QStringLiteral("patch/soft/")));
    QCOMPARE(QString::fromStdString(trace.imageId), QStringLiteral("translated-fashion60:test:0"));
    QCOMPARE(m_page->scrubber()->stepCount(), 4);
    QVERIFY(m_page->infoPanel()->runText().contains(QStringLiteral("soft")));
    QVERIFY(m_page->infoPanel()->stepText().contains(QStringLiteral("entropy")));
    // Five bars, most probable first, summing to at most 1.
    const QVector<double> bars = m_page->infoPanel()->chart()->shownValues();
    QCOMPARE(bars.size(), 5);
    QVERIFY(bars[0] >= bars[4]);
    QVERIFY(std::accumulate(bars.begin(), bars.end(), 0.0) <= 1.0 + 1e-3);
    // 3 patch models, 3 RAMs and the captioners.
    const QStringList bundled = m_page->modelPanel()->bundledPaths();
    QCOMPARE(bundled.filter(QStringLiteral("/patch-")).size(), 3);
    QCOMPARE(bundled.filter(QStringLiteral("/ram-")).size(), 3);
    QCOMPARE(bundled.filter(QStringLiteral("/caption-")).size(), 7);
    QCOMPARE(bundled.filter(QStringLiteral("/seq-")).size(), 0);  // text models: the Sequences page's list
    // A captioner's entry says what it is, not "0 steps".
    auto* list = m_page->modelPanel()->findChild<QListWidget*>(QStringLiteral("bundledModels"));
    QVERIFY(list);
    for (int i = 0; i < list->count(); ++i) {
        QVERIFY2(!list->item(i)->text().contains(QStringLiteral(" 0 steps")), qPrintable(list->item(i)->text()));
        if (list->item(i)->text().startsWith(QStringLiteral("caption-soft-scenes64")))
            QVERIFY2(list->item(i)->text().contains(QStringLiteral("captioner, soft attention, up to")),
                     qPrintable(list->item(i)->text()));
    }
    // A sequence model opened here (a file dialog, a drop) is handed to the Sequences page, unloaded.
    QSignalSpy handed(m_page, &AttentionPage::sequenceModelRequested);
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/seq-dates-additive.pt"));
    QCOMPARE(handed.size(), 1);
    QVERIFY(m_page->errorBanner()->isHidden());
    QVERIFY(!m_page->isBusy());
}

void TestAttentionPage::steppingChangesTheOverlay() {
    m_page->scrubber()->setCurrentStep(0);
    const QImage first = m_page->canvas()->grab().toImage();
    const QString firstText = m_page->infoPanel()->stepText();
    QTest::keyClick(m_page->canvas(), Qt::Key_Right);
    QCOMPARE(m_page->scrubber()->currentStep(), 1);
    QCOMPARE(m_page->canvas()->step(), 1);
    const QImage second = m_page->canvas()->grab().toImage();
    QVERIFY(first != second);
    QVERIFY(firstText != m_page->infoPanel()->stepText() ||
            m_page->canvas()->trace()->steps[0].grid->probs != m_page->canvas()->trace()->steps[1].grid->probs);
    QTest::keyClick(m_page->canvas(), Qt::Key_Left);
    QCOMPARE(m_page->canvas()->step(), 0);
    QTest::keyClick(m_page->canvas(), Qt::Key_End);  // to the last step, and back to the first
    QCOMPARE(m_page->canvas()->step(), m_page->scrubber()->stepCount() - 1);
    QTest::keyClick(m_page->canvas(), Qt::Key_Home);
    QCOMPARE(m_page->canvas()->step(), 0);
}

void TestAttentionPage::chosenCellIsDrawnOnItsPixels() {
    QVERIFY(m_page->setRule(QStringLiteral("argmax")));  // one chosen cell a step
    waitForTrace();
    OverlaySettings only;
    only.heatmap = false;
    only.path = false;
    only.truth = false;
    only.chosen = true;
    m_page->toolbar()->setOverlays(only);
    QCOMPARE(m_page->canvas()->overlays(), only);
    auto* canvas = m_page->canvas();
    canvas->fitToWindow();
    for (int step = 0; step < 4; ++step) {
        m_page->scrubber()->setCurrentStep(step);
        const auto& s = canvas->trace()->steps[size_t(step)];
        QCOMPARE(int(s.chosenCells.size()), 1);
        const QRectF cell = canvas->cellRect(s.grid->rows, s.grid->cols, s.chosenCells[0]);
        const QPointF topLeft = canvas->imageToWidget(cell.topLeft());
        const QPointF bottomRight = canvas->imageToWidget(cell.bottomRight());
        const QImage shot = canvas->grab().toImage();
        const int midX = int((topLeft.x() + bottomRight.x()) / 2) + 8;  // off the step badge
        const int top = int(std::round(topLeft.y())) + 1;
        const int left = int(std::round(topLeft.x())) + 1;
        const int midY = int((topLeft.y() + bottomRight.y()) / 2) + 8;
        QVERIFY2(isChosenColour(shot.pixel(midX, top)), qPrintable(QStringLiteral("step %1 top edge").arg(step)));
        QVERIFY2(isChosenColour(shot.pixel(left, midY)), qPrintable(QStringLiteral("step %1 left edge").arg(step)));
        QVERIFY2(!isChosenColour(shot.pixel(midX, top - 4)), "outside the box");
        QVERIFY2(!isChosenColour(shot.pixel(left - 4, midY)), "outside the box");
    }
    // With "Chosen" off the edge pixels go back to the image.
    only.chosen = false;
    m_page->toolbar()->setOverlays(only);
    const auto& s = canvas->trace()->steps[3];
    const QPointF tl = canvas->imageToWidget(canvas->cellRect(s.grid->rows, s.grid->cols, s.chosenCells[0]).topLeft());
    QVERIFY(!isChosenColour(canvas->grab().toImage().pixel(int(tl.x()) + 10, int(std::round(tl.y())) + 1)));
    m_page->toolbar()->setOverlays(OverlaySettings{});
}

void TestAttentionPage::sameSeedSameTraceNewSeedRuns() {
    m_page->toolbar()->setSeed(3);
    QVERIFY(m_page->setRule(QStringLiteral("sample")));
    waitForTrace();
    const auto first = *m_page->canvas()->trace();
    QCOMPARE(QString::fromStdString(first.rule), QStringLiteral("sample"));
    QCOMPARE(first.seed, 3u);
    QVERIFY(m_page->infoPanel()->runText().contains(QStringLiteral("seed 3")));
    // Away and back: the same seed gives the same choices.
    QVERIFY(m_page->setRule(QStringLiteral("argmax")));
    waitForTrace();
    QVERIFY(m_page->setRule(QStringLiteral("sample")));
    waitForTrace();
    const auto again = *m_page->canvas()->trace();
    for (size_t s = 0; s < first.steps.size(); ++s)
        QCOMPARE(again.steps[s].chosenCells, first.steps[s].chosenCells);
    QCOMPARE(again.output.probs, first.output.probs);
    // Soft attention chooses nothing.
    QVERIFY(m_page->setRule(QStringLiteral("soft")));
    waitForTrace();
    QVERIFY(m_page->canvas()->trace()->steps[0].chosenCells.empty());
    // K samples: every cell the runs chose, and the rule's name in the side panel.
    QVERIFY(m_page->setRule(QStringLiteral("ksample:20")));
    waitForTrace();
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->rule), QStringLiteral("ksample:20"));
    QVERIFY(!m_page->canvas()->trace()->steps[0].chosenCells.empty());
    QVERIFY(m_page->infoPanel()->runText().contains(QStringLiteral("K sampled runs")));
    QVERIFY(m_page->infoPanel()->stepText().contains(QStringLiteral("mean entropy")));
}

void TestAttentionPage::newestRequestWins() {
    QSignalSpy spy(m_page, &AttentionPage::statusMessage);
    for (int seed = 10; seed < 20; ++seed) {
        m_page->toolbar()->setSeed(quint64(seed));
        if (seed == 10) QVERIFY(m_page->setRule(QStringLiteral("sample")));
    }
    QVERIFY(m_page->setRule(QStringLiteral("topk:2")));
    waitForTrace();
    const auto& trace = *m_page->canvas()->trace();
    QCOMPARE(QString::fromStdString(trace.rule), QStringLiteral("topk:2"));
    QCOMPARE(int(trace.steps[0].chosenCells.size()), 2);
    // Superseded requests were dropped, not drawn one after another.
    int drawn = 0;
    for (const auto& args : spy) drawn += args.at(0).toString().contains(QStringLiteral(" under ")) ? 1 : 0;
    QVERIFY2(drawn < 11, qPrintable(QString::number(drawn)));
    QVERIFY(m_page->setRule(QStringLiteral("argmax")));
    waitForTrace();
}

void TestAttentionPage::brokenCheckpointIsReportedInTheWindow() {
    // As `saccade broken.pt` does: the bundled model stays, and the failure stays in sight.
    QTemporaryDir dir;
    const QString broken = dir.filePath(QStringLiteral("broken.pt"));
    QFile::copy(m_page->bundledFolder() + QStringLiteral("/patch-soft-fashion60.pt"), broken);
    QFile::copy(m_page->bundledFolder() + QStringLiteral("/patch-soft-fashion60.json"), dir.filePath(QStringLiteral("broken.json")));
    QVERIFY(QFile::resize(broken, 5000));  // truncated
    QSignalSpy spy(m_page, &AttentionPage::statusMessage);
    const int toolbarTop = m_page->toolbar()->mapTo(m_page, QPoint(0, 0)).y();
    m_page->openModel(broken);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->errorBanner()->isVisible(), 30'000);
    // Said once: the banner floats over the canvas (nothing moves), and the canvas keeps the model shown.
    QCOMPARE(m_page->toolbar()->mapTo(m_page, QPoint(0, 0)).y(), toolbarTop);
    QCOMPARE(m_page->errorBanner()->parentWidget(), static_cast<QWidget*>(m_page->canvas()));
    QCOMPARE(m_page->canvas()->message(), QString());
    const QString banner = m_page->errorBanner()->text();
    QVERIFY2(banner.contains(QStringLiteral("broken.pt")) && banner.contains(QStringLiteral("truncated")), qPrintable(banner));
    QVERIFY2(banner.contains(QStringLiteral("Still showing")), qPrintable(banner));
    bool statusSaidSo = false;
    for (const auto& args : spy) statusSaidSo |= args.at(0).toString().contains(QStringLiteral("Model not loaded"));
    QVERIFY(statusSaidSo);
    QVERIFY(m_page->canvas()->trace().has_value());
    // The next request clears it.
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/patch-soft-fashion60.pt"));
    QVERIFY(!m_page->errorBanner()->isVisible());
    waitForTrace();
}

void TestAttentionPage::resumedModelsCardGivesTheRunsItTook() {
    // A model resumed with another --iterations ran under two schedules: its card's re-create line
    // is both runs, never the one command that would anneal over the last total alone.
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("patch-soft-fashion60.pt"));
    QVERIFY(QFile::copy(m_page->bundledFolder() + QStringLiteral("/patch-soft-fashion60.pt"), model));
    QFile in(m_page->bundledFolder() + QStringLiteral("/patch-soft-fashion60.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject sidecar = QJsonDocument::fromJson(in.readAll()).object();
    const qint64 first = sidecar.value(QStringLiteral("total_iterations")).toInteger();
    QVERIFY(first > 0);
    sidecar[QStringLiteral("earlier_schedules")] =
        QJsonArray{QJsonObject{{QStringLiteral("until"), first}, {QStringLiteral("total"), first}}};
    sidecar[QStringLiteral("iteration")] = first + 4000;
    sidecar[QStringLiteral("total_iterations")] = first + 4000;
    QFile out(dir.filePath(QStringLiteral("patch-soft-fashion60.json")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(sidecar).toJson());
    out.close();
    auto* card = m_page->modelPanel()->findChild<QLabel*>(QStringLiteral("modelCard"));
    QVERIFY(card);
    m_page->openModel(model);
    const QString expected = QStringLiteral(" --iterations %1 --out patch-soft-fashion60.pt; then saccade-cli train patch "
                                            "--resume patch-soft-fashion60.pt --iterations %2 --out patch-soft-fashion60.pt")
                                 .arg(first).arg(first + 4000);
    QTRY_VERIFY2_WITH_TIMEOUT(card->text().contains(expected), qPrintable(card->text()), 30'000);
    if (qEnvironmentVariableIsSet("SACCADE_SCREENSHOT_DIR")) {
        for (QWidget* w = m_page->modelPanel(); w; w = w->parentWidget())
            if (auto* tabs = qobject_cast<QTabWidget*>(w)) {
                tabs->setCurrentWidget(m_page->modelPanel());
                break;
            }
        QCoreApplication::processEvents();
        m_page->grab().save(qEnvironmentVariable("SACCADE_SCREENSHOT_DIR") + QStringLiteral("/model-card-resumed.png"));
    }
    m_page->openModel(m_page->bundledFolder() + QStringLiteral("/patch-soft-fashion60.pt"));
    waitForTrace();
}

void TestAttentionPage::badImageFileIsReported() {
    QSignalSpy spy(m_page, &AttentionPage::statusMessage);
    m_page->openImageFile(QStringLiteral("/nonexistent/photo.png"));
    QVERIFY(!spy.isEmpty());
    QVERIFY2(spy.last().at(0).toString().contains(QStringLiteral("/nonexistent/photo.png")),
             qPrintable(spy.last().at(0).toString()));
    // The previous trace is still there and the page still works.
    QVERIFY(m_page->canvas()->trace().has_value());
    QTemporaryDir dir;
    const QString corrupt = dir.filePath(QStringLiteral("corrupt.png"));
    QFile f(corrupt);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x89PNG\r\n\x1a\nnot really");
    f.close();
    m_page->openImageFile(corrupt);
    QVERIFY(spy.last().at(0).toString().contains(QStringLiteral("corrupt.png")));
    // A larger image is fitted to the model's input and traced.
    const QString big = dir.filePath(QStringLiteral("big.png"));
    QImage image(120, 90, QImage::Format_RGB32);
    image.fill(Qt::white);
    QVERIFY(image.save(big));
    m_page->openImageFile(big);
    waitForTrace();
    QCOMPARE(QString::fromStdString(m_page->canvas()->trace()->imageId), big);
    QCOMPARE(m_page->canvas()->image().width(), 60);
    m_page->openSample(QStringLiteral("translated-fashion60"), 0);
    waitForTrace();
}

void TestAttentionPage::exportsWriteReadableFiles() {
    QTemporaryDir dir;
    const auto& trace = *m_page->canvas()->trace();
    const QString png = dir.filePath(QStringLiteral("view.png"));
    QCOMPARE(exportViewPng(*m_page->canvas(), png), QString());
    const QImage view(png);
    QCOMPARE(view.width(), 60 * exportScale(60));
    const QString svg = dir.filePath(QStringLiteral("view.svg"));
    QCOMPARE(exportViewSvg(*m_page->canvas(), svg), QString());
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QVERIFY(svgFile.readAll().contains("<svg"));
    saccade::Image image;
    image.width = image.height = 60;
    image.channels = 1;
    const QImage grey = m_page->canvas()->image().convertToFormat(QImage::Format_Grayscale8);
    for (int y = 0; y < 60; ++y)
        for (int x = 0; x < 60; ++x) image.pixels.push_back(qGray(grey.pixel(x, y)));
    const QString gif = dir.filePath(QStringLiteral("run.gif"));
    QCOMPARE(exportGif(image, trace, gif), QString());
    QFile gifFile(gif);
    QVERIFY(gifFile.open(QIODevice::ReadOnly));
    QCOMPARE(gifFile.read(6), QByteArray("GIF89a"));
    const QString strip = dir.filePath(QStringLiteral("strip.png"));
    QCOMPARE(exportStripPng(image, trace, strip), QString());
    QVERIFY(QImage(strip).width() > QImage(strip).height());

    // For slides: a chosen scale and a caption under the figure.
    ImageExportOptions big;
    big.scale = 3;
    big.caption = QString::fromStdString(saccade::traceCaption(trace));
    QVERIFY(big.caption.contains(QStringLiteral("seed %1").arg(trace.seed)));
    QVERIFY(big.caption.contains(QStringLiteral("predicted ")));
    const QString bigPng = dir.filePath(QStringLiteral("big-view.png"));
    QCOMPARE(exportViewPng(*m_page->canvas(), bigPng, big), QString());
    const QImage bigView(bigPng);
    QCOMPARE(bigView.width(), 180);
    QVERIFY(bigView.height() > QImage(png).height() * 3 / exportScale(60));  // the caption adds rows
    // The footer holds light text: some pixel below the scene is bright.
    int bright = 0;
    for (int y = bigView.height() - 20; y < bigView.height(); ++y)
        for (int x = 0; x < bigView.width(); ++x) bright += qGray(bigView.pixel(x, y)) > 180;
    QVERIFY(bright > 10);
    const QString bigStrip = dir.filePath(QStringLiteral("big-strip.png"));
    QCOMPARE(exportStripPng(image, trace, bigStrip, big), QString());
    ImageExportOptions uncaptioned;
    uncaptioned.scale = 3;
    const QString plainStrip = dir.filePath(QStringLiteral("plain-strip.png"));
    QCOMPARE(exportStripPng(image, trace, plainStrip, uncaptioned), QString());
    QCOMPARE(QImage(bigStrip).width(), QImage(plainStrip).width());
    QVERIFY(QImage(bigStrip).height() >= QImage(plainStrip).height() + 16);  // one caption line at least
    const QString bigGif = dir.filePath(QStringLiteral("big.gif"));
    QCOMPARE(exportGif(image, trace, bigGif, big), QString());
    QImageReader frames(bigGif);
    QVERIFY(frames.canRead());
    QCOMPARE(frames.imageCount(), int(trace.steps.size()));
    QCOMPARE(frames.read().width(), std::max(200, 60 * 3 + 8));
    const QString json = dir.filePath(QStringLiteral("trace.json"));
    QCOMPARE(exportTraceJson(trace, json), QString());
    const auto back = saccade::loadTrace(json.toStdString());
    QVERIFY(back.ok());
    QCOMPARE(back->steps.size(), trace.steps.size());
    QCOMPARE(back->steps[0].chosenCells, trace.steps[0].chosenCells);
    const QString csv = dir.filePath(QStringLiteral("trace.csv"));
    QCOMPARE(exportTraceCsv(trace, csv), QString());
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    QCOMPARE(csvFile.readAll().count('\n'), 5);  // header + 4 steps
    // An unwritable path is an error message, not a crash.
    QVERIFY(!exportTraceJson(trace, QStringLiteral("/nonexistent/dir/t.json")).isEmpty());
}

void TestAttentionPage::exportOptionsDialogReturnsTheChoice() {
    ExportOptionsRequest request;
    request.what = QStringLiteral("view");
    request.imageSize = QSize(60, 60);
    request.automaticScale = 8;
    request.caption = QStringLiteral("model, image, seed 3");
    QTimer::singleShot(0, [] {
        auto* dialog = qApp->findChild<QDialog*>(QStringLiteral("exportOptionsDialog"));
        if (!dialog) {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (w->objectName() == QStringLiteral("exportOptionsDialog")) dialog = qobject_cast<QDialog*>(w);
        }
        QVERIFY(dialog);
        dialog->findChild<QSpinBox*>(QStringLiteral("exportScale"))->setValue(5);
        dialog->findChild<QLineEdit*>(QStringLiteral("exportCaption"))->setText(QStringLiteral("  my slide  "));
        dialog->accept();
    });
    const auto chosen = askImageExportOptions(nullptr, request);
    QVERIFY(chosen.has_value());
    QCOMPARE(chosen->scale, 5);
    QCOMPARE(chosen->caption, QStringLiteral("my slide"));
    // Caption off: an empty caption; cancel: nothing.
    QTimer::singleShot(0, [] {
        for (QWidget* w : QApplication::topLevelWidgets())
            if (w->objectName() == QStringLiteral("exportOptionsDialog")) {
                w->findChild<QCheckBox*>(QStringLiteral("exportCaptionOn"))->setChecked(false);
                qobject_cast<QDialog*>(w)->accept();
            }
    });
    const auto plain = askImageExportOptions(nullptr, request);
    QVERIFY(plain.has_value());
    QVERIFY(plain->caption.isEmpty());
    QCOMPARE(plain->scale, 0);
    QTimer::singleShot(0, [] {
        for (QWidget* w : QApplication::topLevelWidgets())
            if (w->objectName() == QStringLiteral("exportOptionsDialog")) qobject_cast<QDialog*>(w)->reject();
    });
    QVERIFY(!askImageExportOptions(nullptr, request).has_value());
}

QTEST_MAIN(TestAttentionPage)
#include "test_attention_page.moc"
