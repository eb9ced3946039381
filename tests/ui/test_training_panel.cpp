// The training panel: a job runs on its own thread with live curves; Stop saves a checkpoint and
// leaves the panel usable for the next job. (A few iterations of a tiny model: no real training.)

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QPushButton>
#include <QDir>
#include <QLegend>
#include <QLegendMarker>
#include <QChart>
#include <QFontMetrics>
#include <QtTest>

#include "ui/charts/training_chart.h"
#include "models/vit/vit_config.h"
#include "ui/training/training_panel.h"

using namespace saccade::ui;

class TestTrainingPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void formRoundTrip();
    void stopSavesAndLeavesThePanelUsable();
    void everyFamilyTrainsHere();
};

// A patch run's form, as a request (the settings the form does not show keep their defaults).
saccade::FamilyTrainRequest patchRequest(const TrainingPanel& panel, const char* dataset, const char* mode, int steps) {
    saccade::FamilyTrainRequest r = panel.request();
    r.dataset = dataset;
    r.settings["mode"] = mode;
    r.settings["steps"] = std::to_string(steps);
    return r;
}

void TestTrainingPanel::formRoundTrip() {
    TrainingPanel panel;
    QCOMPARE(panel.family(), QStringLiteral("patch"));
    saccade::FamilyTrainRequest o = patchRequest(panel, "cluttered-digits60", "hard", 3);
    o.settings["grid"] = "6";
    o.common.batch = 16;
    o.common.iterations = 42;
    o.common.seed = 9;
    o.common.out = "/tmp/x.pt";
    panel.setRequest(o);
    const auto back = panel.request();
    QCOMPARE(QString::fromStdString(back.dataset), QStringLiteral("cluttered-digits60"));
    QCOMPARE(QString::fromStdString(back.settings.at("mode")), QStringLiteral("hard"));
    QCOMPARE(QString::fromStdString(back.settings.at("steps")), QStringLiteral("3"));
    QCOMPARE(QString::fromStdString(back.settings.at("grid")), QStringLiteral("6"));
    QCOMPARE(back.common.batch, 16);
    QCOMPARE(back.common.iterations, 42);
    QCOMPARE(back.common.seed, 9u);
    QCOMPARE(QString::fromStdString(back.common.out), QStringLiteral("/tmp/x.pt"));
    // The command that re-creates the run: the family's fields that apply (the entropy bonus only
    // under hard attention), the batch and the seed.
    QCOMPARE(QString::fromStdString(back.common.command),
             QStringLiteral("saccade-cli train patch --dataset cluttered-digits60 --mode hard --scorer additive "
                            "--variant dense --steps 3 --grid 6 --entropy-bonus 0.01 --batch 16 --seed 9"));
    // The form is built from the family's fields: a field the patch family does not declare is
    // not there, and a value out of its range is refused.
    QVERIFY(!panel.setField(QStringLiteral("glimpses"), QStringLiteral("3")));
    QVERIFY(!panel.setField(QStringLiteral("steps"), QStringLiteral("65")));
    QVERIFY(!panel.setField(QStringLiteral("mode"), QStringLiteral("greedy")));
    QVERIFY(panel.setField(QStringLiteral("mode"), QStringLiteral("gumbel")));
    QVERIFY(QString::fromStdString(panel.request().common.command).contains(QStringLiteral("--gumbel-rate 0.0002")));
}

void TestTrainingPanel::stopSavesAndLeavesThePanelUsable() {
    QTemporaryDir dir;
    TrainingPanel panel;
    QSignalSpy ended(&panel, &TrainingPanel::jobEnded);
    saccade::FamilyTrainRequest o = patchRequest(panel, "translated-digits60", "hard", 2);  // procedural data
    o.common.batch = 4;
    o.common.iterations = 1'000'000;  // would run for hours: only Stop ends it
    o.common.out = dir.filePath(QStringLiteral("stopped.pt")).toStdString();
    panel.setRequest(o);
    panel.startTraining();
    QVERIFY(panel.isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(panel.chart()->lossPointCount() >= 2, 60'000);
    panel.stopTraining();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60'000);
    QVERIFY(!panel.isRunning());
    QVERIFY2(panel.statusText().startsWith(QStringLiteral("Stopped after")), qPrintable(panel.statusText()));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("stopped.pt"))));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("stopped.json"))));
    auto* open = panel.findChild<QPushButton*>(QStringLiteral("openModelButton"));
    QVERIFY(open && open->isEnabled());

    // A run at the same path, discarded: the model saved there before is untouched, no staged
    // file stays, and "Open in Attention" is off while it trains (it is not that run's model).
    auto bytes = [&](const QString& name) {
        QFile f(dir.filePath(name));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray weights = bytes(QStringLiteral("stopped.pt")), sidecar = bytes(QStringLiteral("stopped.json"));
    panel.startTraining();
    QVERIFY(panel.isRunning());
    QVERIFY(!open->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(panel.chart()->lossPointCount() >= 2, 60'000);
    panel.findChild<QPushButton*>(QStringLiteral("discardButton"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 60'000);
    QVERIFY2(panel.statusText().contains(QStringLiteral("discarded the run")), qPrintable(panel.statusText()));
    QCOMPARE(bytes(QStringLiteral("stopped.pt")), weights);
    QCOMPARE(bytes(QStringLiteral("stopped.json")), sidecar);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).filter(QStringLiteral("unsaved")), QStringList());
    // The legend names every series whole: a column on the right as wide as its longest name.
    panel.resize(1150, 740);  // the page's room in a 1280x800 window
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::qWait(100);
    auto* legend = panel.chart()->chart()->legend();
    QCOMPARE(legend->alignment(), Qt::AlignRight);
    int widest = 0;
    for (auto* marker : legend->markers())
        if (marker->isVisible()) widest = std::max(widest, QFontMetrics(legend->font()).horizontalAdvance(marker->label()));
    QVERIFY2(legend->geometry().width() >= widest, qPrintable(QStringLiteral("%1 < %2").arg(legend->geometry().width()).arg(widest)));

    // The next job runs to its end.
    o.common.iterations = 3;
    o.common.out = dir.filePath(QStringLiteral("short.pt")).toStdString();
    panel.setRequest(o);
    panel.startTraining();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 3, 120'000);
    QVERIFY2(panel.statusText().startsWith(QStringLiteral("Finished 3 iterations")), qPrintable(panel.statusText()));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("short.pt"))));  // kept: moved over the chosen path
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral(".short.unsaved.pt"))));
    QVERIFY(panel.chart()->evalPointCount() >= 1);  // the final evaluation
}

void TestTrainingPanel::everyFamilyTrainsHere() {
    QTemporaryDir dir;
    TrainingPanel panel;
    QSignalSpy ended(&panel, &TrainingPanel::jobEnded);
    QVERIFY(!panel.setFamily(QStringLiteral("nonsense")));
    const struct {
        const char* family;
        const char* dataset;
        const char* modelType;
        const char* evalText;
    } cases[] = {{"ram", "translated-digits60", "ram", "random glimpses"},
                 {"caption", "scenes64", "caption", "BLEU-4"},
                 {"seq", "reverse", "seq", "held-out data): exact match"},
                 {"vit", "translated-digits60", "vit", "held-out data): accuracy"}};
    int jobs = 0;
    for (const auto& c : cases) {
        QVERIFY(panel.setFamily(QString::fromLatin1(c.family)));
        QCOMPARE(panel.family(), QString::fromLatin1(c.family));
        saccade::FamilyTrainRequest o = panel.request();
        o.dataset = c.dataset;
        o.common.batch = 4;
        o.common.iterations = 2;
        o.common.out = dir.filePath(QStringLiteral("%1.pt").arg(QString::fromLatin1(c.family))).toStdString();
        panel.setRequest(o);
        panel.setField(QStringLiteral("glimpses"), QStringLiteral("2"));
        panel.setField(QStringLiteral("layers"), QStringLiteral("2"));
        QCOMPARE(QString::fromStdString(panel.request().dataset), QString::fromLatin1(c.dataset));
        // Sharpening is the soft captioner's option only: the form has it for no other family.
        auto* sharpen = panel.findChild<QDoubleSpinBox*>(QStringLiteral("field-attention-entropy"));
        const bool caption = QString::fromLatin1(c.family) == QLatin1String("caption");
        QCOMPARE(sharpen != nullptr, caption);
        if (caption) {
            QVERIFY(sharpen->isEnabled());
            sharpen->setValue(0.05);
            QVERIFY(panel.setField(QStringLiteral("dsr-lambda"), QStringLiteral("0")));
        }
        panel.startTraining();
        ++jobs;
        if (!QTest::qWaitFor([&] { return ended.count() == jobs; }, 180'000)) QFAIL(qPrintable(panel.statusText()));
        QVERIFY2(panel.statusText().startsWith(QStringLiteral("Finished 2 iterations")), qPrintable(panel.statusText()));
        QVERIFY2(panel.statusText().contains(QString::fromLatin1(c.evalText)), qPrintable(panel.statusText()));
        QFile sidecar(dir.filePath(QStringLiteral("%1.json").arg(QString::fromLatin1(c.family))));
        QVERIFY(sidecar.open(QIODevice::ReadOnly));
        const auto written = QJsonDocument::fromJson(sidecar.readAll()).object();
        QCOMPARE(written.value(QStringLiteral("model_type")).toString(), QString::fromLatin1(c.modelType));
        QCOMPARE(written.value(QStringLiteral("command")).toString().contains(QStringLiteral("--dsr-lambda 0 --attention-entropy 0.05")),
                 caption);
        QVERIFY(panel.chart()->evalPointCount() >= 1);
    }
    // The ViT's patch follows the dataset: 10 px on 60 px images, 7 px on 28 px ones; the form's
    // steps are its layers (choosing the family again resets the form to its defaults).
    QVERIFY(panel.setFamily(QStringLiteral("patch")));
    QVERIFY(panel.setFamily(QStringLiteral("vit")));
    {
        auto* datasets = panel.findChild<QComboBox*>(QStringLiteral("datasetCombo"));
        QVERIFY(datasets);
        datasets->setCurrentIndex(datasets->findData(QStringLiteral("translated-fashion60")));
        QCOMPARE(panel.request().settings.at("patch"), std::string("10"));
        QCOMPARE(panel.request().settings.at("layers"), std::to_string(saccade::VitConfig{}.layers));
        datasets->setCurrentIndex(datasets->findData(QStringLiteral("fashion28")));
        QCOMPARE(panel.request().settings.at("patch"), std::string("7"));
        QVERIFY(datasets->findData(QStringLiteral("scenes64")) < 0);
    }
    // A sequence model trains on its tasks, not on images.
    QVERIFY(panel.setFamily(QStringLiteral("seq")));
    {
        saccade::FamilyTrainRequest seq = panel.request();
        seq.dataset = "translated-digits60";
        panel.setRequest(seq);
        QVERIFY(QString::fromStdString(panel.request().dataset) != QStringLiteral("translated-digits60"));
    }
    // A hard captioner has no entropy weight to set.
    QVERIFY(panel.setFamily(QStringLiteral("caption")));
    {
        auto* sharpen = panel.findChild<QDoubleSpinBox*>(QStringLiteral("field-attention-entropy"));
        QVERIFY(sharpen && sharpen->isEnabled());
        QVERIFY(panel.setField(QStringLiteral("mode"), QStringLiteral("hard")));
        QVERIFY(!sharpen->isEnabled());
        QVERIFY(!QString::fromStdString(panel.request().common.command).contains(QStringLiteral("--attention-entropy")));
        QVERIFY(panel.setField(QStringLiteral("mode"), QStringLiteral("soft")));
        QVERIFY(sharpen->isEnabled());
    }
    // The captioner reads only scene datasets; the patch family only greyscale ones.
    QVERIFY(panel.setFamily(QStringLiteral("patch")));
    saccade::FamilyTrainRequest o = panel.request();
    o.dataset = "scenes64";
    panel.setRequest(o);
    QVERIFY(QString::fromStdString(panel.request().dataset) != QStringLiteral("scenes64"));
}

QTEST_MAIN(TestTrainingPanel)
#include "test_training_panel.moc"
