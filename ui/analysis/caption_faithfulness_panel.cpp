#include "ui/analysis/caption_faithfulness_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/analysis_job.h"
#include "ui/analysis/faithfulness_panel.h"
#include "ui/charts/series_chart.h"
#include "models/attention_model.h"
#include "ui/view_export.h"

namespace saccade::ui {

CaptionFaithfulnessPanel::CaptionFaithfulnessPanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("captionFaithfulnessPanel"));
    m_scenes = new QSpinBox(this);
    m_scenes->setRange(1, 10000);
    m_scenes->setValue(50);
    m_scenes->setSuffix(tr(" scenes"));
    m_scenes->setToolTip(tr("The first test scenes; each object word is occluded and decoded again (about 0.3 s a scene)"));
    buildJobControls(tr("Measure"), QStringLiteral("captionFaithfulnessButton"));
    auto* caveat = makeAttentionCaveat(this);
    m_summary = statusLabel();
    m_summary->setTextFormat(Qt::RichText);
    m_deletion = new SeriesChart(this);
    m_deletion->setObjectName(QStringLiteral("captionDeletionChart"));
    m_deletion->setTitles(tr("Words kept when their cells are occluded"), tr("fraction of the word's cells occluded"), {});
    const QString views = tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)");
    m_export = makeExportButton(
        this, {{tr("Export the deletion curves"), QStringLiteral("caption-deletion.png"), views,
                [this](const QString& path) { return exportDeletion(path); }},
               {tr("Export the report"), QStringLiteral("caption-faithfulness.json"), tr("JSON (*.json)"),
                [this](const QString& path) { return exportJson(path); }}});
    m_export->setEnabled(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_scenes);
    controls->addWidget(runButton());
    controls->addWidget(cancelButton());
    controls->addWidget(m_export);
    controls->addWidget(progressBar(), 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(caveat);
    layout->addWidget(m_summary);
    layout->addWidget(m_deletion, 1);

    m_summary->setText(tr("Open a captioner on the Attention page, then measure."));
}

void CaptionFaithfulnessPanel::setModel(const QString& checkpoint, const QString& dataset) {
    adoptModel(checkpoint, dataset);
    m_summary->setText(tr("Model: %1. For each word that names an object: is its attention on the object, and does "
                          "the word survive losing the cells it looked at?")
                           .arg(modelName()));
}

void CaptionFaithfulnessPanel::clearResult() {
    m_report.reset();
    m_deletion->clear();
    m_export->setEnabled(false);
}

void CaptionFaithfulnessPanel::setScenes(int scenes) { m_scenes->setValue(scenes); }

void CaptionFaithfulnessPanel::run() {
    if (modelCheckpoint().isEmpty()) return m_summary->setText(tr("Open a captioner on the Attention page first."));
    CaptionFaithfulnessOptions o;
    o.limit = m_scenes->value();
    const std::string checkpoint = modelCheckpoint().toStdString(), dataset = modelDataset().toStdString();
    auto report = std::make_shared<CaptionFaithfulness>();
    auto work = [=](const Progress& progress) -> QString {
        auto model = loadAttentionModel(checkpoint, "auto");
        if (!model) return QString::fromStdString(model.error());
        auto d = openDataset(dataset);
        if (!d) return QString::fromStdString(d.error());
        auto r = measureCaptionFaithfulness(**model, **d, Split::Test, o, progress);
        if (!r) return QString::fromStdString(r.error());
        *report = std::move(r).value();
        return {};
    };
    startJob(work, [this, report] {
        m_report = report;
        showReport();
    }, tr("Occluding each object word's cells on %1 scenes…").arg(o.limit));
}

void CaptionFaithfulnessPanel::showReport() {
    const CaptionFaithfulness& r = *m_report;
    m_export->setEnabled(true);
    const CaptionDeletionPoint* tenth = nullptr;  // the row a reader looks at first
    for (const auto& d : r.deletion)
        if (!tenth && d.fraction >= 0.1 - 1e-9) tenth = &d;
    QString text = tr("<b>%1</b>, %2 scenes, %3 object words, %4 rule, %5 s. At its word, <b>%6%</b> of the attention "
                      "lies on the object the word names (uniform attention: %7%).")
                       .arg(QString::fromStdString(r.dataset)).arg(r.images).arg(r.words)
                       .arg(QString::fromStdString(r.rule)).arg(r.seconds, 0, 'f', 1)
                       .arg(100 * r.massOnObject, 0, 'f', 1).arg(100 * r.uniformMass, 0, 'f', 1);
    if (tenth)
        text += tr(" Occluding the %1% of cells it attended most removes the word from the caption <b>%2%</b> of "
                   "the time; as many random cells, %3%.")
                    .arg(100 * tenth->fraction, 0, 'f', 0).arg(100 * (1 - tenth->keptAttended), 0, 'f', 1)
                    .arg(100 * (1 - tenth->keptRandom), 0, 'f', 1);
    m_summary->setText(text);
    QVector<SeriesChart::Series> series{{tr("word kept: its most attended cells occluded"), {}},
                                        {tr("word kept: random cells occluded"), {}, true}};
    for (const auto& d : r.deletion) {
        series[0].points << QPointF(d.fraction, d.keptAttended);
        series[1].points << QPointF(d.fraction, d.keptRandom);
    }
    m_deletion->setSeries(series, 0, 1);
}

QString CaptionFaithfulnessPanel::exportDeletion(const QString& path) {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportView(*m_deletion, m_deletion->csv(QStringLiteral("fraction")), path, {},
                      {tr("Deletion: the caption as the most attended cells are removed"), plainText(m_summary->text())});
}

QString CaptionFaithfulnessPanel::exportJson(const QString& path) const {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportJsonFile(captionFaithfulnessToJson(*m_report), path);
}

}  // namespace saccade::ui
