#include "ui/atlas/atlas_page.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <memory>

#include "ui/atlas/atlas_map_view.h"
#include "common/atomic_file.h"
#include "common/samples_dir.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "ui/file_dialogs.h"
#include "render/atlas_render.h"
#include "ui/view_export.h"

namespace saccade::ui {

namespace {

// The bundled models with self-attention: the ViTs and the sequence Transformers.
QStringList bundledModels() {
    const QDir dir(QString::fromStdString(findSamplesDir()) + QStringLiteral("/models"));
    QStringList out;
    for (const QString& f : dir.entryList({QStringLiteral("*.pt")}, QDir::Files, QDir::Name))
        if (f.startsWith(QStringLiteral("vit-")) || f.contains(QStringLiteral("transformer"))) out << dir.filePath(f);
    return out;
}

QString shareRow(const QString& what, const std::array<double, 4>& share) {
    QString row = QStringLiteral("<tr><td>%1</td>").arg(what);
    for (double v : share) row += QStringLiteral("<td align='right'>&nbsp;%1%</td>").arg(100 * v, 0, 'f', 1);
    return row + QStringLiteral("</tr>");
}

}  // namespace

AtlasPage::AtlasPage(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("atlasPage"));
    m_map = new AtlasMapView(this);
    m_map->clear(tr("Place a head's queries and keys to see them here."));
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(buildControls());
    layout->addWidget(m_map, 1);
    connect(m_map, &AtlasMapView::pointChosen, this, [this](int input, int, bool) {
        if (!m_atlas) return;
        const QString sentence = input < int(m_atlas->sentences.size()) ? QString::fromStdString(m_atlas->sentences[std::size_t(input)]) : QString();
        Q_EMIT openInput(QString::fromStdString(m_atlas->model), QString::fromStdString(m_atlas->dataset), input, sentence,
                         m_atlas->layer, m_atlas->head, QString::fromStdString(m_atlas->modelLayer));
    });
}

QWidget* AtlasPage::buildControls() {
    auto* box = new QWidget(this);
    box->setFixedWidth(300);
    m_model = new QComboBox(box);
    m_model->setObjectName(QStringLiteral("atlasModel"));
    for (const QString& path : bundledModels()) m_model->addItem(QFileInfo(path).fileName(), path);
    m_model->addItem(tr("Another file…"), QString());
    m_model->setToolTip(tr("A ViT or sequence Transformer checkpoint: their attention layers give their queries and keys"));
    const int preferred = m_model->findText(QStringLiteral("seq-dates-transformer.pt"));
    m_model->setCurrentIndex(std::max(0, preferred));
    connect(m_model, &QComboBox::activated, this, [this](int index) {
        if (!m_model->itemData(index).toString().isEmpty()) return;
        const QString path = openFileDialog(this, tr("Open a ViT or sequence Transformer"), tr("Checkpoints (*.pt)"));
        if (path.isEmpty()) return m_model->setCurrentIndex(0);
        select(path, m_layer->value(), m_head->value());
    });
    auto spin = [box](const QString& name, int lo, int hi, int value, const QString& tip) {
        auto* s = new QSpinBox(box);
        s->setObjectName(name);
        s->setRange(lo, hi);
        s->setValue(value);
        s->setToolTip(tip);
        return s;
    };
    m_layer = spin(QStringLiteral("atlasLayer"), 1, 64, 2, tr("The layer, from 1"));
    m_head = spin(QStringLiteral("atlasHead"), 1, 64, 3, tr("The head, from 1"));
    m_inputs = spin(QStringLiteral("atlasInputs"), 3, 500, 40, tr("The first N test images or sentences"));
    m_method = new QComboBox(box);
    m_method->setObjectName(QStringLiteral("atlasMethod"));
    m_method->addItem(tr("t-SNE"), QStringLiteral("tsne"));
    m_method->addItem(tr("UMAP"), QStringLiteral("umap"));
    m_method->addItem(tr("PCA"), QStringLiteral("pca"));
    m_seed = spin(QStringLiteral("atlasSeed"), 0, 1'000'000, 1,
                  tr("t-SNE and UMAP: the start's noise (UMAP: its samples too); the same seed gives the same map"));
    m_attention = new QComboBox(box);
    m_attention->setObjectName(QStringLiteral("atlasAttention"));
    m_attention->addItem(tr("Encoder self-attention"), QStringLiteral("encoder"));
    m_attention->addItem(tr("Decoder self-attention"), QStringLiteral("decoder"));
    m_attention->addItem(tr("Cross-attention"), QStringLiteral("cross"));
    m_attention->setToolTip(tr("A ViT has encoder self-attention only. A sequence Transformer's decoder reads its own "
                               "translation of each sentence; cross-attention places the decoder's queries beside the "
                               "source's keys."));
    m_dataset = new QComboBox(box);
    m_dataset->setObjectName(QStringLiteral("atlasDataset"));
    m_dataset->addItem(tr("Its own test split"), QString());
    for (const auto& [name, description] : datasetNames()) {
        m_dataset->addItem(QString::fromStdString(name), QString::fromStdString(name));
        m_dataset->setItemData(m_dataset->count() - 1, QString::fromStdString(description), Qt::ToolTipRole);
    }
    m_dataset->addItem(tr("A file of sentences…"), QStringLiteral(":file"));
    m_dataset->addItem(tr("An image folder…"), QStringLiteral(":folder"));
    m_dataset->setToolTip(tr("The model's own test split; for a ViT another dataset or an image folder (fitted to the "
                             "model); for a sequence model a text file of sentences, one per line."));
    connect(m_dataset, &QComboBox::activated, this, [this](int index) {
        const QString kind = m_dataset->itemData(index).toString();
        if (kind != QLatin1String(":file") && kind != QLatin1String(":folder")) return;
        const QString path = kind == QLatin1String(":file")
                                 ? openFileDialog(this, tr("Sentences, one per line"), tr("Text (*.txt);;All files (*)"))
                                 : folderDialog(this, tr("A folder of images, one subfolder per class"));
        if (path.isEmpty()) return m_dataset->setCurrentIndex(0);
        setDataset(path);
    });
    auto* form = new QFormLayout;
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("Attention"), m_attention);
    form->addRow(tr("Layer"), m_layer);
    form->addRow(tr("Head"), m_head);
    form->addRow(tr("Inputs"), m_inputs);
    form->addRow(tr("Data"), m_dataset);
    form->addRow(tr("Map"), m_method);
    form->addRow(tr("Seed"), m_seed);
    buildJobControls(tr("Place"), QStringLiteral("atlasPlace"));
    setJobInputs({m_model, m_attention, m_layer, m_head, m_inputs, m_dataset, m_method, m_seed});
    const QString views = tr("PNG (*.png);;SVG (*.svg);;JSON (*.json)");
    m_export = makeExportButton(box, {{tr("Export the atlas"), QStringLiteral("atlas.png"), views,
                                       [this](const QString& path) { return exportTo(path); }}});
    m_export->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton());
    buttons->addWidget(cancelButton());
    buttons->addWidget(m_export);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(progressBar());
    layout->addWidget(statusLabel());
    layout->addStretch(1);
    return box;
}

QString AtlasPage::modelPath() const { return m_model->currentData().toString(); }

AtlasOptions AtlasPage::request() const {
    AtlasOptions o;
    o.layer = m_layer->value();
    o.head = m_head->value();
    o.limit = m_inputs->value();
    o.embedding.method = m_method->currentData().toString().toStdString();
    o.embedding.seed = std::uint64_t(m_seed->value());
    o.attention = m_attention->currentData().toString().toStdString();
    o.dataset = m_dataset->currentData().toString().toStdString();
    return o;
}

void AtlasPage::setDataset(const QString& dataset) {
    int i = m_dataset->findData(dataset);
    if (i < 0) {  // a file or folder of the user's: shown by its name, the whole path in its tooltip
        i = m_dataset->count() - 2;
        m_dataset->insertItem(i, QFileInfo(dataset).fileName(), dataset);
        m_dataset->setItemData(i, dataset, Qt::ToolTipRole);
    }
    m_dataset->setCurrentIndex(i);
}

void AtlasPage::setMethod(const QString& method) { m_method->setCurrentIndex(std::max(0, m_method->findData(method))); }

void AtlasPage::select(const QString& model, int layer, int head, const QString& attention) {
    int i = m_model->findData(model);
    if (i < 0) {
        m_model->insertItem(m_model->count() - 1, QFileInfo(model).fileName(), model);
        i = m_model->count() - 2;
    }
    m_model->setCurrentIndex(i);
    m_layer->setValue(layer);
    m_head->setValue(head);
    m_attention->setCurrentIndex(std::max(0, m_attention->findData(attention)));
}

void AtlasPage::setInputs(int inputs) { m_inputs->setValue(inputs); }

void AtlasPage::run() {
    const QString model = modelPath();
    if (model.isEmpty()) return showError(tr("Choose a ViT or sequence Transformer checkpoint."));
    adoptModel(model);
    const AtlasOptions o = request();
    auto result = std::make_shared<std::optional<Atlas>>();
    const std::string path = model.toStdString();
    startJob(
        [result, path, o](const Progress& progress) {
            auto a = buildAtlas(path, o, progress);
            if (!a) return QString::fromStdString(a.error());
            *result = std::move(a).value();
            return QString();
        },
        [this, result] {
            m_atlas = *result;
            showAtlas();
        },
        tr("Placing the queries and keys of %1 layer %2, head %3 over %4 inputs…")
            .arg(m_attention->currentText().toLower()).arg(o.layer).arg(o.head).arg(o.limit));
    m_placedOnce = true;
}

void AtlasPage::showAtlas() {
    m_map->setAtlas(*m_atlas);
    m_export->setEnabled(true);
    const auto o = atlasOffsets(*m_atlas);
    const QString unit = m_atlas->positions == "patch" ? tr("patches") : tr("tokens");
    std::size_t queries = 0;
    for (const auto& p : m_atlas->points) queries += p.query ? 1 : 0;
    QString text = tr("<b>%1</b>, %2, head %3 of %4: %5 inputs, %6 queries, %7 keys, %8&nbsp;s.")
                       .arg(modelName(), QString::fromStdString(m_atlas->modelLayer)).arg(m_atlas->head).arg(m_atlas->heads)
                       .arg(m_atlas->inputs).arg(queries).arg(m_atlas->points.size() - queries).arg(m_atlas->seconds, 0, 'f', 1) +
                   tr("<br>The nearest key in the map is the most attended: %1% (chance %2%).")
                       .arg(100 * o.nearestIsAttended, 0, 'f', 1).arg(100 * o.chanceIsAttended, 0, 'f', 1);
    if (o.positional)
        text += tr("<br>How far each query is from a key, in %1:").arg(unit) +
                QStringLiteral("<table><tr><td></td><td align='right'>0</td><td align='right'>1</td><td align='right'>2</td>"
                               "<td align='right'>3+</td></tr>") +
                shareRow(tr("most attended"), o.attended) + shareRow(tr("nearest in map"), o.nearest) +
                shareRow(tr("chance"), o.chance) + QStringLiteral("</table>");
    statusLabel()->setText(text + tr("<br>Hover a dot to name it; click it to open its input."));
}

void AtlasPage::clearResult() {
    m_atlas.reset();
    m_map->clear(tr("Place a head's queries and keys to see them here."));
    m_export->setEnabled(false);
}

QString AtlasPage::exportTo(const QString& path) const {
    if (!m_atlas) return tr("Nothing placed yet.");
    const QString suffix = QFileInfo(path).suffix().toLower();
    std::string bytes;
    if (suffix == QLatin1String("json")) {
        bytes = atlasToJson(*m_atlas) + "\n";
    } else if (suffix == QLatin1String("svg")) {
        bytes = renderAtlas(*m_atlas).toSvg("atlas");
    } else if (suffix == QLatin1String("png")) {
        if (auto png = encodeImagePng(renderAtlas(*m_atlas).toImage()); png) bytes = *png;
    } else {
        return tr("Give the file a .png, .svg or .json name.");
    }
    if (bytes.empty()) return tr("Could not encode %1.").arg(path);
    auto saved = writeFileAtomic(path.toStdString(), bytes);
    return saved ? QString() : QString::fromStdString(saved.error());
}

void AtlasPage::showEvent(QShowEvent* event) {
    JobPanel::showEvent(event);
    if (!m_placedOnce && !modelPath().isEmpty()) run();
}

}  // namespace saccade::ui
