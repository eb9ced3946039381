// The Attention page's Map row on every model kind (issue 51): each bundled family and each
// import the samples hold opens; the row offers exactly the maps that core says the model gives
// (checkMapMethod, computed here on a model of its own), greyed out with that reason where it does
// not; and a gradient map is drawn on every classifier that offers one, imports included, as a
// distribution over its cells. Captioners keep every map (word by word); an imported captioner's
// is refused on the map's canvas in one true line; the RAM's input-gradient maps are greyed out.

#include <QComboBox>
#include <QStandardItemModel>
#include <QtTest>

#include "shown_attention_page.h"
#include "analysis/attribution/image_maps.h"
#include "ui/attention/attention_canvas.h"
#include "ui/attention/attention_page.h"
#include "ui/attention/attribution_view.h"
#include "models/attention_model.h"

using namespace saccade;
using namespace saccade::ui;

class TestViewsOnEveryModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void mapRowOffersWhatEachModelGives_data();
    void mapRowOffersWhatEachModelGives();
    void cleanupTestCase();

private:
    AttentionPage* m_page = nullptr;
};

void TestViewsOnEveryModel::initTestCase() {
    m_page = shownAttentionPage();
    QVERIFY(QTest::qWaitForWindowExposed(m_page));
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isBusy() && m_page->canvas()->trace().has_value(), 60'000);
}

void TestViewsOnEveryModel::cleanupTestCase() { delete m_page; }

void TestViewsOnEveryModel::mapRowOffersWhatEachModelGives_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("classifier");
    QTest::newRow("patch") << "patch-soft-fashion60.pt" << true;
    QTest::newRow("ram") << "ram-translated-fashion60.pt" << true;
    QTest::newRow("vit") << "vit-translated-fashion60.pt" << true;
    QTest::newRow("captioner") << "caption-soft-scenes64.pt" << false;
    // After another family: the wait below knows a model by the first word of its file's name.
    QTest::newRow("vit, shifted patches") << "vit-spt-translated-fashion60.pt" << true;
    QTest::newRow("import grid") << "../torchscript/grid_attention.pt" << true;
    QTest::newRow("import glimpses") << "../torchscript/glimpse_model.pt" << true;
    QTest::newRow("import transformer") << "../torchscript/vit_model.pt" << true;
    QTest::newRow("import torchvision ViT") << "../torchscript/torchvision_vit.pt" << true;
    QTest::newRow("import captioner") << "../torchscript/sat_captioner.pt" << false;
}

void TestViewsOnEveryModel::mapRowOffersWhatEachModelGives() {
    QFETCH(QString, file);
    QFETCH(bool, classifier);
    const QString path = QDir(m_page->bundledFolder()).filePath(file);
    const QString name = QFileInfo(path).fileName();
    m_page->openModel(path);
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isBusy() && m_page->canvas()->trace().has_value() &&
                                 QString::fromStdString(m_page->canvas()->trace()->modelId).contains(name.section('.', 0, 0).section('-', 0, 0)),
                             60'000);
    auto model = loadAttentionModel(path.toStdString(), "cpu");
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().c_str());
    auto* combo = m_page->findChild<QComboBox*>(QStringLiteral("mapCombo"));
    QVERIFY(combo);
    auto* items = qobject_cast<QStandardItemModel*>(combo->model());
    QVERIFY(items);
    int gradient = -1;
    for (int i = 1; i < combo->count(); ++i) {
        const std::string method = combo->itemData(i).toString().toStdString();
        const auto gives = classifier ? checkMapMethod(**model, method) : Result<Unit>(Unit{});
        QVERIFY2(items->item(i)->isEnabled() == gives.ok(), qPrintable(QStringLiteral("%1 on %2").arg(combo->itemText(i), name)));
        if (!gives.ok())
            QCOMPARE(combo->itemData(i, Qt::ToolTipRole).toString(), QString::fromStdString(gives.error()));
        if (method == "gradient") gradient = gives.ok() ? i : -1;
    }
    auto* view = m_page->attributionView();
    if (!classifier) {
        // A captioner's maps are word by word; an import's caption() has no word scores.
        QVERIFY(view->setMethod(QStringLiteral("gradient")));
        QTRY_VERIFY_WITH_TIMEOUT(!view->busy(), 60'000);
        if (name == QLatin1String("sat_captioner.pt"))
            QVERIFY2(view->canvas()->message().contains(QStringLiteral("no score per word")), qPrintable(view->canvas()->message()));
        else
            QVERIFY2(view->map().has_value(), qPrintable(view->canvas()->message()));
        view->setMethod(QString());
        return;
    }
    if (gradient < 0) {  // the RAM's sensor has no input gradient: greyed out above, with the reason
        QCOMPARE(name, QStringLiteral("ram-translated-fashion60.pt"));
        QVERIFY(!view->setMethod(QStringLiteral("gradient")));
        return;
    }
    QVERIFY(view->setMethod(QStringLiteral("gradient")));
    QTRY_VERIFY_WITH_TIMEOUT(!view->busy() && (view->map().has_value() || !view->canvas()->message().isEmpty()), 60'000);
    QVERIFY2(view->map().has_value(), qPrintable(view->canvas()->message()));
    double total = 0;
    for (double v : view->map()->cells) total += v;
    QVERIFY2(std::abs(total - 1.0) < 1e-6, qPrintable(QString::number(total)));
    view->setMethod(QString());
}

QTEST_MAIN(TestViewsOnEveryModel)
#include "test_views_on_every_model.moc"
