#include "ui/analysis/caption_sweep_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/analysis_job.h"
#include "metrics/caption_metrics.h"
#include "ui/charts/series_chart.h"
#include "data/procedural_scenes.h"
#include "models/attention_model.h"
#include "ui/number_format.h"
#include "ui/view_export.h"

namespace saccade::ui {

namespace {

// The scene vocabulary's objects: every size, colour and shape it has.
QStringList sceneObjects() {
    QStringList sizes, colours, shapes, objects;
    for (const auto& word : sceneVocabulary()) {
        const QString w = QString::fromStdString(word);
        switch (sceneWordClass(word)) {
            case WordClass::Size: sizes << w; break;
            case WordClass::Colour: colours << w; break;
            case WordClass::Shape: shapes << w; break;
            default: break;
        }
    }
    for (const QString& size : sizes)
        for (const QString& colour : colours)
            for (const QString& shape : shapes) objects << QStringLiteral("%1 %2 %3").arg(size, colour, shape);
    return objects;
}


}  // namespace

CaptionSweepPanel::CaptionSweepPanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("captionSweepPanel"));
    m_object = new QComboBox(this);
    m_object->setObjectName(QStringLiteral("captionSweepObject"));
    m_object->addItems(sceneObjects());
    m_object->setToolTip(tr("The object moved across the grid line (small: an eighth of the image, large: a third)"));
    m_runs = new QSpinBox(this);
    m_runs->setRange(0, 1000);
    m_runs->setValue(20);
    m_runs->setSuffix(tr(" sampled captions each"));
    m_runs->setToolTip(tr("Sampled captions per offset (0: the deterministic rule only)"));
    buildJobControls(tr("Sweep"), QStringLiteral("captionSweepButton"));
    m_summary = statusLabel();
    m_summary->setTextFormat(Qt::RichText);
    m_profile = new SeriesChart(this);
    m_profile->setObjectName(QStringLiteral("captionSweepProfile"));
    m_profile->setMinimumHeight(230);
    m_table = new QTableWidget(0, 6, this);
    m_table->setObjectName(QStringLiteral("captionSweepTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("dx"), tr("caption (deterministic)"), tr("colour"), tr("mass"), tr("hit"), tr("sampled colour right")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setToolTip(tr("Click a row to open that probe on the Attention page"));
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int) { choose(row); });
    const QString views = tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)");
    m_export = makeExportButton(
        this, {{tr("Export the profile"), QStringLiteral("caption-sweep.png"), views,
                [this](const QString& path) { return exportProfile(path); }},
               {tr("Export the table"), QStringLiteral("caption-sweep.csv"), tr("CSV (*.csv);;PNG (*.png);;SVG (*.svg)"),
                [this](const QString& path) { return exportTable(path); }},
               {tr("Export the sweep"), QStringLiteral("caption-sweep.json"), tr("JSON (*.json)"),
                [this](const QString& path) { return exportJson(path); }}});
    m_export->setEnabled(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_object, 2);
    controls->addWidget(m_runs, 2);
    controls->addWidget(runButton());
    controls->addWidget(cancelButton());
    controls->addWidget(m_export);
    controls->addWidget(progressBar(), 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_profile);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    m_summary->setText(tr("Open a captioner on the Attention page, then sweep an object across a grid line."));
}

void CaptionSweepPanel::setModel(const QString& checkpoint, const QString& dataset) {
    adoptModel(checkpoint, dataset);
    m_summary->setText(tr("Model: %1. Move an object across a grid line: where does its colour word fail?").arg(modelName()));
}

void CaptionSweepPanel::clearResult() {
    m_result.reset();
    m_profile->clear();
    m_table->setRowCount(0);
    m_export->setEnabled(false);
}

void CaptionSweepPanel::setObject(const QString& object) {
    const int i = m_object->findText(object);
    if (i >= 0) m_object->setCurrentIndex(i);
}
void CaptionSweepPanel::setRuns(int runs) { m_runs->setValue(runs); }

void CaptionSweepPanel::run() {
    if (modelCheckpoint().isEmpty()) return m_summary->setText(tr("Open a captioner on the Attention page first."));
    CaptionSweepOptions o;
    o.object = m_object->currentText().toStdString();
    o.runs = m_runs->value();
    o.textured = modelDataset() == QLatin1String("scenes96");  // as `saccade-cli sweep` does
    const std::string checkpoint = modelCheckpoint().toStdString();
    auto sweep = std::make_shared<CaptionSweep>();
    auto size = std::make_shared<int>(0);
    auto work = [=](const Progress& progress) -> QString {
        auto model = loadAttentionModel(checkpoint, "auto");
        if (!model) return QString::fromStdString(model.error());
        *size = (*model)->imageSize();
        auto r = sweepCaptionProbe(**model, o, progress);
        if (!r) return QString::fromStdString(r.error());
        *sweep = std::move(r).value();
        return {};
    };
    startJob(work, [this, sweep, size, o] {
        m_result = sweep;
        m_resultOptions = o;
        m_resultSize = *size;
        showResult();
    }, tr("Sweeping a %1 across the grid line…").arg(m_object->currentText()));
}

bool CaptionSweepPanel::choose(int row) {
    if (!m_result || row < 0 || row >= int(m_result->points.size())) return false;
    const auto& p = m_result->points[size_t(row)];
    SceneOptions scene;
    scene.size = m_resultSize;
    scene.textured = m_resultOptions.textured;
    auto probe = renderSceneProbe(scene, m_result->object, m_result->side, p.x, p.y, m_resultOptions.seed);
    if (!probe) {
        m_summary->setText(QString::fromStdString(probe.error()));
        return false;
    }
    GroundTruth truth;
    truth.boxes = {probe->box};
    truth.names = {m_result->object};
    truth.references = {"a " + m_result->object};
    Q_EMIT caseChosen(probe->image, QStringLiteral("caption probe dx %1").arg(p.dx), truth,
                      std::max(1, m_result->runs), quint64(m_resultOptions.seed));
    return true;
}

void CaptionSweepPanel::showResult() {
    const CaptionSweep& s = *m_result;
    m_export->setEnabled(true);
    SeriesChart::Series colour{tr("%1: colour word right").arg(QString::fromStdString(s.deterministicRule))},
        exact{tr("%1: caption exact").arg(QString::fromStdString(s.deterministicRule)), {}, true},
        sampled{tr("sampled: colour right")}, mass{tr("mass at the colour word")}, hit{tr("cell hits the object"), {}, true};
    int colourRight = 0, hits = 0, sampledPoints = 0;
    double sampledSum = 0;
    const CaptionSweepPoint* worst = nullptr;
    for (const auto& p : s.points) {
        colour.points << QPointF(p.dx, p.colourRight ? 1 : 0);
        exact.points << QPointF(p.dx, p.exact ? 1 : 0);
        mass.points << QPointF(p.dx, p.mass);
        hit.points << QPointF(p.dx, p.hit ? 1 : 0);
        if (p.runsColourRight >= 0) {
            sampled.points << QPointF(p.dx, p.runsColourRight);
            sampledSum += p.runsColourRight;
            ++sampledPoints;
            if (!worst || p.runsColourRight < worst->runsColourRight) worst = &p;
        }
        colourRight += p.colourRight;
        hits += p.hit;
    }
    QVector<SeriesChart::Series> series{colour, exact, mass, hit};
    if (!sampled.points.isEmpty()) series.insert(1, sampled);
    m_profile->setTitles(tr("%1 (%2 px) across the grid line at x = %3 (cells of %4 px)")
                             .arg(QString::fromStdString(s.object)).arg(s.side).arg(s.line).arg(s.cell),
                         tr("dx (px of the box's left edge from the grid line)"), {});
    m_profile->setSeries(series, 0, 1);

    m_table->setRowCount(int(s.points.size()));
    for (int r = 0; r < int(s.points.size()); ++r) {
        const auto& p = s.points[size_t(r)];
        const QColor verdict = p.colourRight ? QColor(30, 140, 60) : QColor(200, 50, 50);
        auto* caption = new QTableWidgetItem(QString::fromStdString(p.caption));
        caption->setForeground(p.exact ? QColor(30, 140, 60) : palette().text().color());
        auto* colourItem = new QTableWidgetItem(p.colourRight ? tr("right") : tr("wrong"));
        colourItem->setForeground(verdict);
        m_table->setItem(r, 0, new QTableWidgetItem(QString::number(p.dx)));
        m_table->setItem(r, 1, caption);
        m_table->setItem(r, 2, colourItem);
        m_table->setItem(r, 3, new QTableWidgetItem(formatPercent(p.mass, 0)));
        m_table->setItem(r, 4, new QTableWidgetItem(p.hit ? tr("yes") : tr("no")));
        m_table->setItem(r, 5, new QTableWidgetItem(formatPercent(p.runsColourRight, 0)));
    }
    QString text = tr("<b>%1</b>, %2 offsets, %3 s: the %4 caption names the colour right at <b>%5 of %2</b>, and its "
                      "cell hits the object at %6.")
                       .arg(QString::fromStdString(s.object)).arg(s.points.size()).arg(s.seconds, 0, 'f', 1)
                       .arg(QString::fromStdString(s.deterministicRule)).arg(colourRight).arg(hits);
    if (worst)
        text += tr(" Sampled captions name it right %1 of the time on average, least at dx = %2 (%3).")
                    .arg(formatPercent(sampledSum / std::max(1, sampledPoints), 0)).arg(worst->dx).arg(formatPercent(worst->runsColourRight, 0));
    m_summary->setText(text);
}

QString CaptionSweepPanel::exportProfile(const QString& path) {
    if (!m_result) return tr("nothing to export: no sweep yet");
    return exportView(*m_profile, m_profile->csv(QStringLiteral("dx")), path, {},
                      {tr("Caption sweep: the object's words as it moves"), plainText(m_summary->text())});
}

QString CaptionSweepPanel::exportTable(const QString& path) {
    if (!m_result) return tr("nothing to export: no sweep yet");
    return ui::exportTable(*m_table, path);
}

QString CaptionSweepPanel::exportJson(const QString& path) const {
    if (!m_result) return tr("nothing to export: no sweep yet");
    return exportJsonFile(captionSweepToJson(*m_result), path);
}

}  // namespace saccade::ui
