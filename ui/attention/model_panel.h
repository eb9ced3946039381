#pragma once
// ModelPanel: the bundled models, "Open model…" (checkpoints and TorchScript files), the device selector, and the model card
// of the loaded model (type, config, dataset, training, accuracy per rule from the sidecar).

#include <QString>
#include <QWidget>

#include "model_service.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace saccade::ui {

class ModelPanel : public QWidget {
    Q_OBJECT

public:
    /// Asks for a file (the Open button, Ctrl+O / Ctrl+Shift+O) and requests it.
    void openDialog();
    explicit ModelPanel(QWidget* parent = nullptr);

    /// Lists the checkpoints (*.pt with a .json sidecar) in `folder`.
    void setBundledFolder(const QString& folder);
    QStringList bundledPaths() const;
    QString device() const;
    void setDevice(const QString& device);
    /// Shows the card of the loaded model and selects it in the list when it is bundled.
    void showCard(const ModelCard& card);
    void showError(const QString& message);

Q_SIGNALS:
    /// The user picked a model (list, file dialog, or a device change for the current one).
    void modelRequested(const QString& path, const QString& device);

private:

    QListWidget* m_list = nullptr;
    QPushButton* m_open = nullptr;
    QComboBox* m_device = nullptr;
    QLabel* m_card = nullptr;
    QString m_currentPath;
    QString m_cardHtml;
};

/// The card as rich text (used by the panel and the tests).
QString modelCardHtml(const ModelCard& card);

}  // namespace saccade::ui
