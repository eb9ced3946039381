#include "ui/analysis/map_table_panel.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/analysis/faithfulness_panel.h"
#include "ui/analysis/map_table_view.h"
#include "ui/charts/series_chart.h"
#include "models/model_input.h"
#include "ui/view_export.h"

namespace saccade::ui {

namespace {

// Ticked on a first model where it gives them: attention, its rollout, and one attribution of
// each kind that costs a few passes an image (occlusion and SmoothGrad take one per cell or sample).
const QStringList kDefaultMaps{QStringLiteral("attention"), QStringLiteral("rollout"),
                               QStringLiteral("gradient-x-input"), QStringLiteral("integrated-gradients"),
                               QStringLiteral("gradcam"), QStringLiteral("gradient-rollout")};

}  // namespace

MapTablePanel::MapTablePanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("mapTablePanel"));
    QWidget* options = buildOptions();
    m_caveat = makeAttentionCaveat(this);
    m_summary = statusLabel();
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableWidget(0, kMapColumns, this);
    m_table->setObjectName(QStringLiteral("mapTable"));
    setMapTableHeaders(*m_table);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    fitTable();
    m_reference = new QLabel(this);
    m_reference->setWordWrap(true);
    m_reference->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_deletion = new SeriesChart(this);
    m_deletion->setObjectName(QStringLiteral("mapDeletionChart"));
    m_deletion->setTitles(tr("Deletion: target probability (lower is better)"), tr("fraction of cells deleted"), {});
    m_insertion = new SeriesChart(this);
    m_insertion->setObjectName(QStringLiteral("mapInsertionChart"));
    m_insertion->setTitles(tr("Insertion: target probability (higher is better)"), tr("fraction of cells restored"), {});
    for (SeriesChart* chart : {m_deletion, m_insertion}) chart->setMinimumSize(300, 200);

    // The table whole on the left (every column in view at 1280x800), the two charts stacked beside.
    auto* left = new QVBoxLayout;
    left->addWidget(m_summary);
    left->addWidget(m_table, 1);
    left->addWidget(m_reference);
    auto* charts = new QVBoxLayout;
    charts->addWidget(m_deletion);
    charts->addWidget(m_insertion);
    auto* body = new QHBoxLayout;
    body->addLayout(left, 3);
    body->addLayout(charts, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(options);
    layout->addWidget(m_caveat);
    layout->addLayout(body, 1);
    m_summary->setText(tr("Open a model on the Attention page, then compare its maps."));
}

QWidget* MapTablePanel::buildOptions() {
    auto* options = new QWidget(this);
    auto* maps = new QGridLayout;
    maps->setContentsMargins(0, 0, 0, 0);
    maps->addWidget(new QLabel(tr("Maps:"), options), 0, 0);
    int i = 0;
    for (const auto& name : mapMethods()) {
        auto* box = new QCheckBox(QString::fromStdString(name), options);
        box->setObjectName(QStringLiteral("map-") + box->text());
        box->setEnabled(false);  // until a model says it gives the map (setModel)
        box->setToolTip(tr("Open a model first"));
        m_boxes << box;
        maps->addWidget(box, i / 5, 1 + i % 5);
        ++i;
    }
    maps->setColumnStretch(6, 1);
    m_images = new QSpinBox(options);
    m_images->setRange(1, 10000);
    m_images->setValue(30);
    m_images->setSuffix(tr(" images"));
    m_images->setToolTip(tr("The first test images of the model's dataset"));
    m_sanity = new QSpinBox(options);
    m_sanity->setRange(0, 1000);
    m_sanity->setValue(4);
    m_sanity->setSuffix(tr(" for the sanity check"));
    m_sanity->setToolTip(tr("The first images whose maps are compared with those of the model with its layers "
                            "randomised from the output down (0: not run)"));
    buildJobControls(tr("Compare the maps"), QStringLiteral("compareMapsButton"));
    m_export = makeExportButton(
        this, {{tr("Export the maps table"), QStringLiteral("maps.csv"), tr("CSV (*.csv);;PNG (*.png);;SVG (*.svg)"),
                [this](const QString& p) { return exportTable(p); }},
               {tr("Export the deletion curves"), QStringLiteral("map-deletion.png"), tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)"),
                [this](const QString& p) { return exportDeletion(p); }},
               {tr("Export the insertion curves"), QStringLiteral("map-insertion.png"), tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)"),
                [this](const QString& p) { return exportInsertion(p); }},
               {tr("Export the report"), QStringLiteral("map-faithfulness.json"), tr("JSON (*.json)"),
                [this](const QString& p) { return exportJson(p); }}});
    m_export->setEnabled(false);
    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(m_images);
    controls->addWidget(m_sanity);
    controls->addWidget(runButton());
    controls->addWidget(cancelButton());
    controls->addWidget(m_export);
    controls->addWidget(progressBar(), 1);
    auto* layout = new QVBoxLayout(options);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(maps);
    layout->addLayout(controls);
    QList<QWidget*> inputs{m_images, m_sanity};
    for (QCheckBox* box : m_boxes) inputs << box;
    setJobInputs(inputs);
    return options;
}

void MapTablePanel::setModel(const QString& checkpoint, const QString& dataset,
                             const QList<QPair<QString, QString>>& maps) {
    adoptModel(checkpoint, dataset);
    for (QCheckBox* box : m_boxes) {
        // What the model says of the map; one it does not name is off.
        QString reason = tr("The model does not say whether it gives this map");
        for (const auto& [name, why] : maps)
            if (name == box->text()) reason = why;
        box->setEnabled(reason.isEmpty());
        box->setToolTip(reason.isEmpty() ? tr("Compare %1 with the other ticked maps").arg(box->text()) : reason);
    }
    if (methods().isEmpty())  // the maps ticked before are not this model's: its defaults
        for (QCheckBox* box : m_boxes) box->setChecked(kDefaultMaps.contains(box->text()));
    m_summary->setText(dataset.isEmpty()
                           ? tr("Model: %1. It has no dataset of its own with boxes to compare its maps on.").arg(modelName())
                           : tr("Model: %1. Compare its attention with attribution on %2.").arg(modelName(), dataset));
}

void MapTablePanel::setMethods(const QStringList& methods) {
    for (QCheckBox* box : m_boxes) box->setChecked(methods.contains(box->text()));
}

QStringList MapTablePanel::methods() const {
    QStringList ticked;
    for (QCheckBox* box : m_boxes)
        if (box->isEnabled() && box->isChecked()) ticked << box->text();
    return ticked;
}

QCheckBox* MapTablePanel::methodBox(const QString& method) const {
    for (QCheckBox* box : m_boxes)
        if (box->text() == method) return box;
    return nullptr;
}

void MapTablePanel::setImages(int images, int sanityImages) {
    m_images->setValue(images);
    m_sanity->setValue(sanityImages);
}

void MapTablePanel::fitTable() {
    // Every column in view: the charts beside give up the width, not the table.
    m_table->resizeColumnsToContents();
    m_table->setMinimumWidth(m_table->horizontalHeader()->length() + 2 * m_table->frameWidth() +
                             m_table->verticalScrollBar()->sizeHint().width());
}

QString MapTablePanel::caveatText() const { return m_caveat->text(); }
QString MapTablePanel::referenceText() const { return m_reference->text(); }

void MapTablePanel::clearResult() {
    m_report.reset();
    m_table->setRowCount(0);
    m_reference->clear();
    m_deletion->clear();
    m_insertion->clear();
    m_export->setEnabled(false);
}

void MapTablePanel::run() {
    if (modelCheckpoint().isEmpty()) return m_summary->setText(tr("Open a model on the Attention page first."));
    if (modelDataset().isEmpty()) return m_summary->setText(tr("The model has no dataset of its own to compare maps on."));
    const QStringList ticked = methods();
    if (ticked.isEmpty()) return m_summary->setText(tr("Tick at least one map the model gives."));
    MapComparisonOptions o;
    for (const auto& m : ticked) o.methods.push_back(m.toStdString());
    o.limit = m_images->value();
    o.sanityImages = std::min(m_sanity->value(), m_images->value());
    const std::string checkpoint = modelCheckpoint().toStdString(), dataset = modelDataset().toStdString();
    auto report = std::make_shared<MapComparisonReport>();
    auto work = [=](const Progress& progress) -> QString {
        auto model = loadAttentionModel(checkpoint, "auto");
        if (!model) return QString::fromStdString(model.error());
        auto d = openDatasetFor(**model, dataset, 1);
        if (!d) return QString::fromStdString(d.error());
        auto r = compareMaps(**model, **d, Split::Test, o, progress);
        if (!r) return QString::fromStdString(r.error());
        *report = std::move(r).value();
        return {};
    };
    startJob(work, [this, report] {
        m_report = report;
        showReport();
    }, tr("Comparing %1 maps on %2 images…").arg(ticked.size()).arg(o.limit));
}

void MapTablePanel::showReport() {
    const auto& r = *m_report;
    m_export->setEnabled(true);
    m_summary->setText(tr("<b>%1</b>, %2 test images (%3 with a box), %4 rule, maps on a %5x%6 grid, each attributed "
                          "to the class the model gives, %7 s.")
                           .arg(QString::fromStdString(r.dataset)).arg(r.images).arg(r.boxed)
                           .arg(QString::fromStdString(r.rule)).arg(r.rows).arg(r.cols).arg(r.seconds, 0, 'f', 1));
    fillMapTable(*m_table, r);
    fitTable();
    m_reference->setText(mapTableReference(r));
    m_deletion->setSeries(mapCurves(r, /*insertion=*/false), 0, 1);
    m_insertion->setSeries(mapCurves(r, /*insertion=*/true), 0, 1);
}

QString MapTablePanel::exportTable(const QString& path) const {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return saccade::ui::exportTable(*m_table, path);
}

QString MapTablePanel::exportDeletion(const QString& path) {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportView(*m_deletion, m_deletion->csv(QStringLiteral("fraction")), path, {},
                      {tr("Deletion: the target's probability as each map's cells are deleted"), plainText(m_summary->text())});
}

QString MapTablePanel::exportInsertion(const QString& path) {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportView(*m_insertion, m_insertion->csv(QStringLiteral("fraction")), path, {},
                      {tr("Insertion: the target's probability as each map's cells are restored"), plainText(m_summary->text())});
}

QString MapTablePanel::exportJson(const QString& path) const {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportJsonFile(mapComparisonToJson(*m_report), path);
}

}  // namespace saccade::ui
