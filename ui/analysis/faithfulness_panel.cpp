#include "ui/analysis/faithfulness_panel.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "ui/analysis_job.h"
#include "ui/charts/series_chart.h"
#include "data/dataset.h"
#include "models/model_input.h"
#include "ui/image_folder_entry.h"
#include "ui/view_export.h"

namespace saccade::ui {

QLabel* makeAttentionCaveat(QWidget* parent) {
    auto* caveat = new QLabel(QStringLiteral("<b>%1</b>").arg(QString::fromUtf8(kAttentionCaveat)), parent);
    caveat->setWordWrap(true);
    caveat->setStyleSheet(QStringLiteral("QLabel { background: #fff4d6; padding: 6px; border: 1px solid #e0c070; }"));
    return caveat;
}

FaithfulnessPanel::FaithfulnessPanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("faithfulnessPanel"));
    m_images = new QSpinBox(this);
    m_images->setRange(10, 10000);
    m_images->setValue(100);
    m_images->setSuffix(tr(" images"));
    m_saliency = new QSpinBox(this);
    m_saliency->setRange(0, 1000);
    m_saliency->setValue(10);
    m_saliency->setSuffix(tr(" for saliency"));
    m_saliency->setToolTip(tr("Images whose every cell is occluded alone to build an occlusion saliency map"));
    m_map = new QComboBox(this);
    m_map->setObjectName(QStringLiteral("faithfulnessMap"));
    m_map->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_map->addItem(tr("its maps"), QString());  // until a model says what it has (setModel)
    m_map->setEnabled(false);
    m_map->setToolTip(tr("Whose maps to measure: the model's deterministic rule's, or for a transformer its raw "
                         "attention (the CLS token's, mean over heads) or its rollout. Measure both and compare: "
                         "they agree at the first layer and part after it."));
    buildDataChooser();
    buildJobControls(tr("Measure"), QStringLiteral("measureButton"));
    m_caveat = makeAttentionCaveat(this);
    m_summary = statusLabel();
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_steps = new QTableWidget(0, 3, this);
    m_steps->setObjectName(QStringLiteral("faithfulnessSteps"));
    m_steps->setToolTip(tr("Attention mass inside the ground-truth box, and the pointing game: the most attended "
                           "cell (or the Gaussian's mean) on the object"));
    m_steps->setHorizontalHeaderLabels({tr("step"), tr("mass in box"), tr("pointing")});
    m_steps->verticalHeader()->setVisible(false);
    m_steps->horizontalHeader()->setStretchLastSection(true);
    m_steps->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_deletion = new SeriesChart(this);
    m_steps->setMinimumWidth(120);
    m_deletion->setObjectName(QStringLiteral("deletionChart"));
    m_reliability = new SeriesChart(this);
    m_reliability->setObjectName(QStringLiteral("reliabilityChart"));
    // Before the first measurement the charts already say what they will show.
    m_steps->resizeColumnsToContents();
    m_deletion->setTitles(tr("Deletion: accuracy (solid), TV distance (dashed)"), tr("fraction of cells removed"), {});
    m_reliability->setTitles(tr("Reliability of attention"), tr("mean attention of a cell"), tr("fraction on the object"));
    const QString views = tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)");
    m_export = makeExportButton(
        this, {{tr("Export the per-step table"), QStringLiteral("faithfulness-steps.csv"), tr("CSV (*.csv);;PNG (*.png);;SVG (*.svg)"),
                [this](const QString& p) { return exportSteps(p); }},
               {tr("Export the deletion curves"), QStringLiteral("deletion.png"), views, [this](const QString& p) { return exportDeletion(p); }},
               {tr("Export the reliability diagram"), QStringLiteral("reliability.png"), views,
                [this](const QString& p) { return exportReliability(p); }},
               {tr("Export the report"), QStringLiteral("faithfulness.json"), tr("JSON (*.json)"), [this](const QString& p) { return exportJson(p); }}});
    m_export->setEnabled(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_images);
    controls->addWidget(m_saliency);
    controls->addWidget(m_map);
    controls->addWidget(m_data);
    controls->addWidget(runButton());
    controls->addWidget(cancelButton());
    controls->addWidget(m_export);
    controls->addWidget(progressBar(), 1);
    auto* grid = new QGridLayout;
    grid->addWidget(m_summary, 0, 0);
    grid->addWidget(m_steps, 1, 0);
    grid->addWidget(m_deletion, 0, 1, 2, 1);
    grid->addWidget(m_reliability, 0, 2, 2, 1);
    grid->setColumnStretch(0, 2);
    grid->setColumnStretch(1, 3);
    grid->setColumnStretch(2, 3);
    grid->setRowStretch(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_caveat);
    layout->addLayout(grid, 1);

    m_summary->setText(tr("Open a model on the Attention page, then measure."));
}

void FaithfulnessPanel::buildDataChooser() {
    m_data = new QComboBox(this);
    m_data->setObjectName(QStringLiteral("faithfulnessData"));
    m_data->setToolTip(tr("Measure on the model's dataset, or on a folder of your images (FOLDER/CLASS/IMAGE, any size); "
                          "a folder has no boxes, so the box figures are not measured"));
    m_folders = new ImageFolderEntry(m_data, tr("A folder of your images: FOLDER/CLASS_NAME/IMAGE.png, any size"));
    m_folders->append();
    m_data->setMinimumContentsLength(14);  // "Image folder…" and a folder's name, whole
    connect(m_folders, &ImageFolderEntry::failed, this, [this](const QString& message) { m_summary->setText(message); });
}

void FaithfulnessPanel::setModel(const QString& checkpoint, const QString& dataset, const QStringList& rules,
                                 const QString& deterministicRule) {
    // The maps the model has: a transformer's raw attention and its rollout, or the one rule's.
    const QString shown = m_map->currentData().toString();
    m_map->clear();
    if (rules.contains(QStringLiteral("rollout"))) {
        m_map->addItem(tr("raw attention"), QStringLiteral("attention"));
        m_map->addItem(tr("rollout"), QStringLiteral("rollout"));
    } else {
        m_map->addItem(tr("%1 maps").arg(deterministicRule.isEmpty() ? tr("its") : deterministicRule), QString());
    }
    m_map->setEnabled(m_map->count() > 1);
    m_map->setCurrentIndex(std::max(0, m_map->findData(shown)));
    adoptModel(checkpoint, dataset);
    {
        // The model's dataset first; the user's folders stay listed for the next model.
        const QSignalBlocker block(m_data);
        QStringList folders;
        for (int i = 0; i < m_data->count(); ++i)
            if (!m_folders->isEntry(i) && m_data->itemData(i).toString() != m_modelData) folders << m_data->itemData(i).toString();
        m_data->clear();
        m_modelData = dataset;
        if (!dataset.isEmpty()) m_data->addItem(dataset, dataset);
        m_folders->append(folders);
        m_data->setCurrentIndex(0);
        m_folders->noteCurrent();
    }
    m_summary->setText(dataset.isEmpty()
                           ? tr("Model: %1. Choose a folder of your images to measure how faithful its attention is.").arg(modelName())
                           : tr("Model: %1. Measure how faithful its attention is on %2.").arg(modelName(), dataset));
}

void FaithfulnessPanel::clearResult() {
    m_report.reset();
    m_steps->setRowCount(0);
    m_deletion->clear();
    m_reliability->clear();
    m_export->setEnabled(false);
}

void FaithfulnessPanel::setImages(int images, int saliencyImages) {
    m_images->setValue(images);
    m_saliency->setValue(saliencyImages);
}

void FaithfulnessPanel::setMapRule(const QString& rule) {
    const int i = m_map->findData(rule);
    if (i >= 0) m_map->setCurrentIndex(i);
}

QString FaithfulnessPanel::caveatText() const { return m_caveat->text(); }

void FaithfulnessPanel::setData(const QString& dataset) {
    const int i = m_data->findData(dataset);
    if (i >= 0 && !m_folders->isEntry(i)) m_data->setCurrentIndex(i);
    else m_folders->addFolder(dataset);
}

QString FaithfulnessPanel::data() const {
    return m_folders->isEntry(m_data->currentIndex()) ? QString() : m_data->currentData().toString();
}

void FaithfulnessPanel::run() {
    if (modelCheckpoint().isEmpty()) return m_summary->setText(tr("Open a model on the Attention page first."));
    FaithfulnessOptions o;
    o.limit = m_images->value();
    o.saliencyImages = m_saliency->value();
    o.rule = m_map->currentData().toString().toStdString();
    const std::string checkpoint = modelCheckpoint().toStdString(), dataset = data().toStdString();
    if (dataset.empty()) {
        m_summary->setText(tr("Choose a dataset or a folder of your images first."));
        return;
    }
    auto report = std::make_shared<FaithfulnessReport>();
    auto work = [=](const Progress& progress) -> QString {
        auto model = loadAttentionModel(checkpoint, "auto");
        if (!model) return QString::fromStdString(model.error());
        auto d = openDatasetFor(**model, dataset, 1);
        if (!d) return QString::fromStdString(d.error());
        auto r = measureFaithfulness(**model, **d, Split::Test, o, progress);
        if (!r) return QString::fromStdString(r.error());
        *report = std::move(r).value();
        return {};
    };
    startJob(work, [this, report] {
        m_report = report;
        showReport();
    }, tr("Measuring on %1 images…").arg(o.limit));
}

void FaithfulnessPanel::showReport() {
    const auto& r = *m_report;
    m_export->setEnabled(true);
    // A figure that was not measured (no boxes, no ranks) says so, never 0.
    const auto figure = [this](const std::optional<double>& v, double scale, int decimals, const QString& unit) {
        return v ? QStringLiteral("<b>%1%2</b>").arg(scale * *v, 0, 'f', decimals).arg(unit) : tr("not measured");
    };
    m_summary->setText(tr("<b>%1</b>, %2 test images (%3 with a box), %4 rule, attention on a %5x%6 grid, %7 s.<br>"
                          "Uniform attention would put %8 in the box. Rank correlation with occlusion saliency "
                          "(Spearman, %9 images): %10. Calibration error of attention as the probability of the "
                          "object: %11.")
                           .arg(QString::fromStdString(r.dataset)).arg(r.images).arg(r.boxed)
                           .arg(QString::fromStdString(r.rule)).arg(r.rows).arg(r.cols).arg(r.seconds, 0, 'f', 1)
                           .arg(figure(r.uniformMass, 100, 1, QStringLiteral("%"))).arg(r.correlationImages)
                           .arg(figure(r.rankCorrelation, 1, 3, {})).arg(figure(r.expectedCalibrationError, 1, 3, {})));
    m_steps->setRowCount(int(r.massPerStep.size()));
    for (int k = 0; k < int(r.massPerStep.size()); ++k) {
        m_steps->setItem(k, 0, new QTableWidgetItem(QString::number(k + 1)));
        m_steps->setItem(k, 1, new QTableWidgetItem(QStringLiteral("%1%").arg(100 * r.massPerStep[size_t(k)], 0, 'f', 1)));
        m_steps->setItem(k, 2, new QTableWidgetItem(QStringLiteral("%1%").arg(100 * r.pointingPerStep[size_t(k)], 0, 'f', 1)));
    }
    m_steps->resizeColumnsToContents();
    // Accuracy (solid) and the output's total variation distance (dashed) after removing the
    // most attended cells, or random ones.
    QVector<SeriesChart::Series> deletion{{tr("attended"), {}}, {tr("random"), {}},
                                          {tr("TV attended"), {}, true}, {tr("TV random"), {}, true}};
    for (const auto& d : r.deletion) {
        deletion[0].points << QPointF(d.fraction, d.accuracyAttention);
        deletion[1].points << QPointF(d.fraction, d.accuracyRandom);
        deletion[2].points << QPointF(d.fraction, d.tvAttention);
        deletion[3].points << QPointF(d.fraction, d.tvRandom);
    }
    m_deletion->setTitles(tr("Deletion: accuracy (solid), TV distance (dashed)"), tr("fraction of cells removed"), {});
    m_deletion->setSeries(deletion, 0, 1);
    QVector<SeriesChart::Series> reliability{{tr("cells on the object"), {}}, {tr("perfect calibration"), {{0, 0}, {1, 1}}, true}};
    for (const auto& b : r.reliability)
        if (b.count) reliability[0].points << QPointF(b.meanAttention, b.onObject);
    m_reliability->setTitles(r.expectedCalibrationError
                                 ? tr("Reliability of attention (ECE %1)").arg(*r.expectedCalibrationError, 0, 'f', 3)
                                 : tr("Reliability of attention: not measured (no boxes)"),
                             tr("mean attention of a cell"), tr("fraction on the object"));
    m_reliability->setSeries(reliability, 0, 1);
}

QString FaithfulnessPanel::exportSteps(const QString& path) const {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportTable(*m_steps, path);
}

QString FaithfulnessPanel::exportDeletion(const QString& path) {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportView(*m_deletion, m_deletion->csv(QStringLiteral("fraction")), path, {},
                      {tr("Deletion: the output as the most attended cells are removed"), plainText(m_summary->text())});
}

QString FaithfulnessPanel::exportReliability(const QString& path) {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportView(*m_reliability, m_reliability->csv(QStringLiteral("mean_attention")), path, {},
                      {tr("Reliability: attention against the effect of occluding"), plainText(m_summary->text())});
}

QString FaithfulnessPanel::exportJson(const QString& path) const {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportJsonFile(faithfulnessToJson(*m_report), path);
}

}  // namespace saccade::ui
