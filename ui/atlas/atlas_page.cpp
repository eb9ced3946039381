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
    m_method->addItem(tr("t-SNE"), QStringLiteral("tsne"));
    m_method->addItem(tr("PCA"), QStringLiteral("pca"));
    m_seed = spin(QStringLiteral("atlasSeed"), 0, 1'000'000, 1, tr("t-SNE: the start's noise; the same seed gives the same map"));
    auto* form = new QFormLayout;
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("Layer"), m_layer);
    form->addRow(tr("Head"), m_head);
    form->addRow(tr("Inputs"), m_inputs);
    form->addRow(tr("Map"), m_method);
    form->addRow(tr("Seed"), m_seed);
    buildJobControls(tr("Place"), QStringLiteral("atlasPlace"));
    setJobInputs({m_model, m_layer, m_head, m_inputs, m_method, m_seed});
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
    return o;
}

void AtlasPage::select(const QString& model, int layer, int head) {
    int i = m_model->findData(model);
    if (i < 0) {
        m_model->insertItem(m_model->count() - 1, QFileInfo(model).fileName(), model);
        i = m_model->count() - 2;
    }
    m_model->setCurrentIndex(i);
    m_layer->setValue(layer);
    m_head->setValue(head);
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
        tr("Placing the queries and keys of layer %1, head %2 over %3 inputs…").arg(o.layer).arg(o.head).arg(o.limit));
    m_placedOnce = true;
}

void AtlasPage::showAtlas() {
    m_map->setAtlas(*m_atlas);
    m_export->setEnabled(true);
    const auto o = atlasOffsets(*m_atlas);
    const QString unit = m_atlas->positions == "patch" ? tr("patches") : tr("tokens");
    statusLabel()->setText(
        tr("<b>%1</b>, layer %2, head %3 of %4: %5 inputs, %6 queries and as many keys, %7 s.")
            .arg(modelName()).arg(m_atlas->layer).arg(m_atlas->head).arg(m_atlas->heads).arg(m_atlas->inputs)
            .arg(m_atlas->points.size() / 2).arg(m_atlas->seconds, 0, 'f', 1) +
        tr("<br>How far each query is from a key, in %1:").arg(unit) +
        QStringLiteral("<table><tr><td></td><td align='right'>0</td><td align='right'>1</td><td align='right'>2</td>"
                       "<td align='right'>3+</td></tr>") +
        shareRow(tr("most attended"), o.attended) + shareRow(tr("nearest in map"), o.nearest) +
        shareRow(tr("chance"), o.chance) + QStringLiteral("</table>") +
        tr("Hover a dot to name it; click it to open its input."));
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
