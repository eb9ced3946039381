#include "ui/labs/lab_labels.h"

#include <QLabel>

namespace saccade::ui {

QLabel* makeLabExplanation(QWidget* parent, const QString& text) {
    auto* label = new QLabel(text, parent);
    label->setObjectName(QStringLiteral("explanationLabel"));
    label->setWordWrap(true);
    QFont emphasis = label->font();
    emphasis.setItalic(true);
    label->setFont(emphasis);
    return label;
}

QLabel* makeLabErrorLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(QStringLiteral("errorLabel"));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("QLabel { color: #c62828; font-weight: bold; }"));
    label->hide();
    return label;
}

}  // namespace saccade::ui
