#include "ui/attention/export_options_dialog.h"

#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace saccade::ui {

std::optional<ImageExportOptions> askImageExportOptions(QWidget* parent, const ExportOptionsRequest& r) {
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("exportOptionsDialog"));
    dialog.setWindowTitle(QObject::tr("Export %1").arg(r.what));
    auto* form = new QFormLayout(&dialog);

    auto* scale = new QSpinBox(&dialog);
    scale->setObjectName(QStringLiteral("exportScale"));
    scale->setRange(0, 16);
    scale->setSpecialValueText(QObject::tr("auto (%1x)").arg(r.automaticScale));
    scale->setSuffix(QStringLiteral("x"));
    scale->setValue(r.scale);
    scale->setToolTip(QObject::tr("Output pixels per image pixel (nearest neighbour, so cells stay sharp)"));
    auto* size = new QLabel(&dialog);
    const auto showSize = [&] {
        const int s = scale->value() > 0 ? scale->value() : r.automaticScale;
        size->setText(QObject::tr("image area %1 x %2 px").arg(r.imageSize.width() * s).arg(r.imageSize.height() * s));
    };
    showSize();
    QObject::connect(scale, &QSpinBox::valueChanged, &dialog, showSize);
    form->addRow(QObject::tr("Scale"), scale);
    form->addRow(QString(), size);

    auto* captionOn = new QCheckBox(QObject::tr("Caption under the figure"), &dialog);
    captionOn->setObjectName(QStringLiteral("exportCaptionOn"));
    captionOn->setChecked(r.captionOn);
    auto* caption = new QLineEdit(r.caption, &dialog);
    caption->setObjectName(QStringLiteral("exportCaption"));
    caption->setMinimumWidth(420);
    caption->setCursorPosition(0);  // the start (model, image) in view
    caption->setEnabled(r.captionOn);
    caption->setToolTip(QObject::tr("Strip and GIF frames draw ASCII text only; other characters show as '?'"));
    QObject::connect(captionOn, &QCheckBox::toggled, caption, &QLineEdit::setEnabled);
    form->addRow(captionOn);
    form->addRow(caption);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(QObject::tr("Choose file..."));
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);

    if (dialog.exec() != QDialog::Accepted) return std::nullopt;
    ImageExportOptions options;
    options.scale = scale->value();
    if (captionOn->isChecked()) options.caption = caption->text().trimmed();
    return options;
}

}  // namespace saccade::ui
