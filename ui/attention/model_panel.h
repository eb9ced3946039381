#pragma once
// ModelPanel: the bundled models, "Open model…" (checkpoints and TorchScript files), the device selector, the
// preprocessing (what the model applies to an image, and the user's resize, crop and normalisation over it),
// and the model card of the loaded model (type, config, dataset, training, accuracy per rule from the sidecar).

#include <QString>
#include <QWidget>

#include "ui/model_service.h"

class QComboBox;
class QLabel;
class QLineEdit;
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
    /// The resize, crop and normalisation set in the Preprocessing fields for the model at `path`:
    /// empty for another model (each model starts from its own).
    InputOverrides inputOverrides(const QString& path) const;

Q_SIGNALS:
    /// The user picked a model (list, file dialog, or a device change for the current one).
    void modelRequested(const QString& path, const QString& device);

private:

    QListWidget* m_list = nullptr;
    QPushButton* m_open = nullptr;
    QComboBox* m_device = nullptr;
    QLabel* m_card = nullptr;
    QLabel* m_applied = nullptr;   ///< what the model applies now
    QLabel* m_prepError = nullptr;
    QLineEdit *m_resize = nullptr, *m_crop = nullptr, *m_mean = nullptr, *m_std = nullptr;
    QPushButton* m_apply = nullptr;
    QWidget* preprocessingBox();
    void applyPreprocessing();
    QString m_currentPath;
    QString m_cardHtml;
};

/// The card as rich text (used by the panel and the tests).
QString modelCardHtml(const ModelCard& card);

}  // namespace saccade::ui
