#pragma once
// ImagePanel: a browser of a dataset's test split, or of a folder of the user's images
// (FOLDER/CLASS_NAME/IMAGE, through the "Image folder…" entry): thumbnails with the label and
// whether argmax and sample get it right; filters: wrong, rules disagree. And image files
// (dialog, recent).

#include <QStringList>
#include <QWidget>

#include "ui/model_service.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace saccade::ui {

class ImageFolderEntry;

class ImagePanel : public QWidget {
    Q_OBJECT

public:
    /// Asks for a file (the Open button, Ctrl+O / Ctrl+Shift+O) and requests it.
    void openDialog();
    static constexpr int kPageSize = 60;

    explicit ImagePanel(ModelService* service, QWidget* parent = nullptr);

    /// Lists the datasets whose images fit a model of this size and channels, preferring
    /// `preferred`, and reloads the thumbnails.
    void setModelShape(int imageSize, int channels, const QString& preferred);
    /// The model's deterministic rule (argmax, or mean for RAM), named in the filters and tips.
    void setDeterministicRuleName(const QString& rule);
    QString dataset() const;
    /// The datasets listed (those the model's inputs fit), without the user's folders.
    QStringList datasets() const;
    /// Lists a folder of the user's images (FOLDER/CLASS_NAME/IMAGE) and browses it; an error
    /// when it is not a folder (its images are checked when they load, in the status line).
    QString addImageFolder(const QString& folder);
    void setRecentFiles(const QStringList& files);
    QStringList recentFiles() const { return m_recent; }
    void addRecentFile(const QString& path);
    /// Thumbnails currently listed (after the filter).
    int shownCount() const;
    /// Selects the thumbnail of `index` when it is on the current page.
    void markCurrent(const QString& dataset, qint64 index);

Q_SIGNALS:
    void sampleChosen(const QString& dataset, qint64 index);
    void fileChosen(const QString& path);

private:
    void reload();
    void addSamples(const QString& dataset, const QVector<BrowsedSample>& samples, qint64 size);
    void applyFilter();
    void rebuildRecentMenu();
    /// Whether item `index` is one of the user's folders.
    bool isFolder(int index) const;

    ModelService* m_service;
    QStringList m_classNames;
    QString m_ruleName = QStringLiteral("argmax");
    QComboBox* m_dataset = nullptr;
    ImageFolderEntry* m_folderEntry = nullptr;
    int m_datasetCount = 0;  ///< the registered datasets come first in m_dataset
    QComboBox* m_filter = nullptr;
    QSpinBox* m_first = nullptr;
    QToolButton* m_prevPage = nullptr;
    QToolButton* m_nextPage = nullptr;
    QListWidget* m_thumbs = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_open = nullptr;
    QToolButton* m_recentButton = nullptr;
    QStringList m_recent;
    QString m_currentDataset;  ///< the input on the canvas, when it is a sample
    qint64 m_currentIndex = -1;
    int m_loaded = 0, m_wrong = 0, m_disagree = 0, m_sampled = 0;
};

}  // namespace saccade::ui
