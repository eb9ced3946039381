#include "ui/attention/model_panel.h"
#include "ui/file_dialogs.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "common/device_list.h"
#include "io/checkpoint.h"
#include "models/model_family.h"
#include "models/model_loading.h"

namespace saccade::ui {

namespace {

// The checkpoint's name and, under it, its family's one-line description from the sidecar.
QString listEntry(const QString& ptPath) {
    const QFileInfo file(ptPath);
    QString text = file.completeBaseName();
    const std::string path = ptPath.toStdString();
    if (isScriptImport(path)) return text + QObject::tr("\n  TorchScript (no sidecar)");
    const auto info = readCheckpointInfo(path);
    const ModelFamily* family = info ? findFamily(info->modelType) : nullptr;
    if (family && family->listLine)
        text += QStringLiteral("\n  ") + QString::fromStdString(family->listLine(info->configJson, info->dataset));
    return text;
}

}  // namespace

QString modelCardHtml(const ModelCard& c) {
    QString html = QStringLiteral("<b>%1</b><br>").arg(c.name.toHtmlEscaped());
    if (c.imported) {  // an imported model's grid has no Saccade training mode, variant or scorer
        html += QObject::tr("imported: not trained by Saccade; deterministic rule: %1<br>").arg(c.deterministicRule);
        html += c.summary.toHtmlEscaped() + QStringLiteral("<br>");
    } else if (c.grid > 0) {
        html += QObject::tr("trained with <b>%1</b> attention; %2 variant<br>").arg(c.mode, c.variant);
        html += QObject::tr("%1x%1 input, %2x%2 cell grid, %3 steps, %4 scorer<br>")
                    .arg(c.imageSize).arg(c.grid).arg(c.steps).arg(c.scorer);
    } else {
        html += QObject::tr("trained with <b>%1</b>; rules %2<br>").arg(c.mode, c.rules.join(QStringLiteral(", ")));
        html += c.summary.toHtmlEscaped() + QStringLiteral("<br>");
    }
    if (c.imported)
        html += QObject::tr("dataset %1; CRC-32 %2<br>")
                    .arg(c.dataset.isEmpty() ? QObject::tr("not named") : c.dataset, c.weightsCrc32.toHtmlEscaped());
    else
        html += QObject::tr("dataset %1; %2 iterations, seed %3; revision %4<br>")
                    .arg(c.dataset).arg(c.iterations).arg(c.seed).arg(c.gitRevision.toHtmlEscaped());
    html += QObject::tr("device %1<br>").arg(c.device);
    const QJsonObject m = QJsonDocument::fromJson(c.metricsJson.toUtf8()).object();
    QStringList accuracies;
    for (const char* rule : {"soft", "argmax", "mean", "sample", "random", "accuracy"}) {
        const QString key = QStringLiteral("eval_%1").arg(QLatin1String(rule));
        if (m.contains(key))
            accuracies << QStringLiteral("%1 %2%").arg(QLatin1String(rule)).arg(100 * m.value(key).toDouble(), 0, 'f', 1);
    }
    if (!accuracies.isEmpty()) {
        html += QObject::tr("accuracy at the end of training (first %1 test images): %2<br>")
                    .arg(m.value(QStringLiteral("eval_images")).toInt())
                    .arg(accuracies.join(QStringLiteral(", ")));
    }
    if (!c.command.isEmpty())
        html += QObject::tr("<small>re-create: <tt>%1</tt></small>").arg(c.command.toHtmlEscaped());
    return html;
}

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("modelPanel"));
    m_list = new QListWidget(this);
    // Each model's description wraps to the list's width rather than running off its right edge.
    m_list->setWordWrap(true);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setResizeMode(QListView::Adjust);
    m_list->setObjectName(QStringLiteral("bundledModels"));
    m_open = new QPushButton(tr("Open model…"), this);
    m_open->setToolTip(tr("A .pt checkpoint with its .json sidecar, or your own TorchScript model "
                          "(docs/model-contract.md); or drop one on the window"));
    m_device = new QComboBox(this);
    m_device->setObjectName(QStringLiteral("deviceCombo"));
    m_device->addItem(tr("auto"), QStringLiteral("auto"));
    for (const auto& name : availableDeviceNames())
        m_device->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_card = new QLabel(this);
    m_card->setObjectName(QStringLiteral("modelCard"));
    m_card->setWordWrap(true);
    m_card->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_card->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    auto* deviceRow = new QFormLayout;
    deviceRow->addRow(tr("Device:"), m_device);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Bundled models:"), this));
    layout->addWidget(m_list, 1);
    layout->addWidget(m_open);
    layout->addLayout(deviceRow);
    layout->addWidget(preprocessingBox());
    layout->addWidget(m_card, 1);

    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        Q_EMIT modelRequested(item->data(Qt::UserRole).toString(), device());
    });
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        const QString path = item->data(Qt::UserRole).toString();
        if (path != m_currentPath) Q_EMIT modelRequested(path, device());
    });
    connect(m_open, &QPushButton::clicked, this, &ModelPanel::openDialog);
    connect(m_device, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_currentPath.isEmpty()) Q_EMIT modelRequested(m_currentPath, device());
    });
}

void ModelPanel::setBundledFolder(const QString& folder) {
    m_list->clear();
    const QDir dir(folder);
    for (const QString& name : dir.entryList({QStringLiteral("*.pt")}, QDir::Files, QDir::Name)) {
        const QString path = dir.filePath(name);
        if (fileReadsText(path.toStdString())) continue;  // text models: the Sequences page lists them
        auto* item = new QListWidgetItem(listEntry(path), m_list);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
    }
}

QStringList ModelPanel::bundledPaths() const {
    QStringList paths;
    for (int i = 0; i < m_list->count(); ++i) paths << m_list->item(i)->data(Qt::UserRole).toString();
    return paths;
}

QString ModelPanel::device() const { return m_device->currentData().toString(); }

void ModelPanel::setDevice(const QString& device) {
    const QSignalBlocker block(m_device);
    const int i = m_device->findData(device);
    if (i >= 0) m_device->setCurrentIndex(i);
}

void ModelPanel::showCard(const ModelCard& card) {
    m_currentPath = card.path;
    // The fields show what was set on this model; another model starts from its own.
    auto list = [](const std::vector<float>& v) {
        QStringList items;
        for (float x : v) items << QString::number(double(x));
        return items.join(QLatin1Char(','));
    };
    const auto& in = card.input;
    m_resize->setText(in.resize ? QString::number(*in.resize) : QString());
    m_crop->setText(!in.crop ? QString()
                    : in.crop->first == in.crop->second ? QString::number(in.crop->first)
                                                         : QStringLiteral("%1x%2").arg(in.crop->first).arg(in.crop->second));
    m_mean->setText(list(in.mean));
    m_std->setText(list(in.std));
    m_prepError->hide();
    m_applied->setText(tr("Applied: %1").arg(card.preprocessing));
    m_cardHtml = modelCardHtml(card);
    m_card->setText(m_cardHtml);
    const QSignalBlocker block(m_list);
    m_list->clearSelection();
    m_list->setCurrentRow(-1);  // a model that is not in the list highlights none of it
    for (int i = 0; i < m_list->count(); ++i)
        if (QFileInfo(m_list->item(i)->data(Qt::UserRole).toString()) == QFileInfo(card.path))
            m_list->setCurrentRow(i);
}

QWidget* ModelPanel::preprocessingBox() {
    auto* box = new QGroupBox(tr("Preprocessing"), this);
    m_applied = new QLabel(box);
    m_applied->setObjectName(QStringLiteral("appliedPreprocessing"));
    m_applied->setWordWrap(true);
    m_applied->setTextFormat(Qt::PlainText);
    m_applied->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto field = [box](const char* name, const QString& placeholder, const QString& tip) {
        auto* edit = new QLineEdit(box);
        edit->setObjectName(QLatin1String(name));
        edit->setPlaceholderText(placeholder);
        edit->setToolTip(tip);
        return edit;
    };
    m_resize = field("resizeField", tr("model's"), tr("Resize so the shorter side is this many pixels"));
    m_crop = field("cropField", tr("model's"), tr("Then cut out the centre: S or HxW pixels (the model's input size)"));
    m_mean = field("meanField", tr("model's"), tr("Imported models: the mean per channel, e.g. 0.5 or 0.485,0.456,0.406, or imagenet"));
    m_std = field("stdField", tr("model's"), tr("Imported models: the std per channel, e.g. 0.25, or imagenet"));
    m_apply = new QPushButton(tr("Apply"), box);
    m_apply->setObjectName(QStringLiteral("applyPreprocessing"));
    m_apply->setToolTip(tr("Reopen the model with these settings (empty fields keep the model's own)"));
    m_prepError = new QLabel(box);
    m_prepError->setObjectName(QStringLiteral("preprocessingError"));
    m_prepError->setStyleSheet(QStringLiteral("color:#c33"));
    m_prepError->setWordWrap(true);
    m_prepError->hide();
    auto* form = new QFormLayout(box);
    form->addRow(m_applied);
    form->addRow(tr("Resize:"), m_resize);
    form->addRow(tr("Centre crop:"), m_crop);
    form->addRow(tr("Mean:"), m_mean);
    form->addRow(tr("Std:"), m_std);
    form->addRow(m_prepError);
    form->addRow(m_apply);
    connect(m_apply, &QPushButton::clicked, this, &ModelPanel::applyPreprocessing);
    for (QLineEdit* edit : {m_resize, m_crop, m_mean, m_std})
        connect(edit, &QLineEdit::returnPressed, this, &ModelPanel::applyPreprocessing);
    m_applied->setText(tr("Open a model to see what it does to an image."));
    return box;
}

void ModelPanel::applyPreprocessing() {
    auto parsed = parseInputOverrides(m_resize->text().trimmed().toStdString(), m_crop->text().trimmed().toStdString(),
                                      m_mean->text().trimmed().toStdString(), m_std->text().trimmed().toStdString());
    m_prepError->setVisible(!parsed);
    if (!parsed) {
        // The field names of the CLI's options read as the form's labels here.
        QString message = QString::fromStdString(parsed.error());
        message.replace(QStringLiteral("--center-crop"), tr("Centre crop")).replace(QStringLiteral("--resize"), tr("Resize"));
        message.replace(QStringLiteral("--mean"), tr("Mean")).replace(QStringLiteral("--std"), tr("Std"));
        m_prepError->setText(message);
        return;
    }
    if (!m_currentPath.isEmpty()) Q_EMIT modelRequested(m_currentPath, device());
}

InputOverrides ModelPanel::inputOverrides(const QString& path) const {
    if (m_currentPath.isEmpty() || QFileInfo(path) != QFileInfo(m_currentPath)) return {};
    auto parsed = parseInputOverrides(m_resize->text().trimmed().toStdString(), m_crop->text().trimmed().toStdString(),
                                      m_mean->text().trimmed().toStdString(), m_std->text().trimmed().toStdString());
    return parsed ? *parsed : InputOverrides{};
}

void ModelPanel::showError(const QString& message) {
    QString html = QStringLiteral("<span style='color:#c33'>%1</span>").arg(message.toHtmlEscaped());
    if (!m_cardHtml.isEmpty()) html += tr("<br><br>Still loaded:<br>") + m_cardHtml;
    m_card->setText(html);
}

void ModelPanel::openDialog() {
    const QString path = openFileDialog(this, tr("Open a model"),
                                                      tr("Checkpoints and TorchScript models (*.pt *.pth *.ts);;All files (*)"));
    if (!path.isEmpty()) Q_EMIT modelRequested(path, device());
}

}  // namespace saccade::ui
