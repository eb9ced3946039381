#include "ui/image_folder_entry.h"
#include "ui/file_dialogs.h"

#include <QComboBox>
#include <QEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSignalBlocker>

#include "data/folder_dataset.h"

namespace saccade::ui {

namespace {
const QString kEntry = QStringLiteral("saccade:image-folder");
}  // namespace

ImageFolderEntry::ImageFolderEntry(QComboBox* combo, QString tooltip)
    : QObject(combo), m_combo(combo), m_tooltip(std::move(tooltip)) {
    // A long path must not widen the panel: the combo shows the folder's name, the tip its path.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(4);
    // The item to return to: whatever was last shown that is not the entry (set by code or user).
    connect(combo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0 && !isEntry(index)) m_last = index;
    });
    // The wheel would land on the entry and open a dialog nobody asked for: choose by click or keys.
    combo->installEventFilter(this);
    connect(combo, &QComboBox::activated, this, [this](int index) {
        if (!isEntry(index)) return;
        const QString folder = folderDialog(m_combo->parentWidget(), tr("A folder of class folders of images"));
        {
            const QSignalBlocker block(m_combo);  // back to what was shown, without reloading it
            m_combo->setCurrentIndex(m_last);
        }
        if (folder.isEmpty()) return;
        if (const QString error = addFolder(folder); !error.isEmpty()) Q_EMIT failed(error);
    });
}

bool ImageFolderEntry::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_combo && event->type() == QEvent::Wheel) return true;  // swallowed: no accidental dialog
    return QObject::eventFilter(watched, event);
}

void ImageFolderEntry::append(const QStringList& folders) {
    m_combo->addItem(tr("Image folder…"), kEntry);
    m_combo->setItemData(m_combo->count() - 1, m_tooltip, Qt::ToolTipRole);
    for (const QString& folder : folders)  // listed again, not chosen; a folder gone since is dropped
        if (isImageFolder(folder.toStdString())) insertFolder(folder);
    noteCurrent();
}

void ImageFolderEntry::noteCurrent() {
    if (!isEntry(m_combo->currentIndex())) m_last = std::max(0, m_combo->currentIndex());
}

int ImageFolderEntry::insertFolder(const QString& path) {
    int i = m_combo->findData(path);
    if (i < 0) {
        i = std::max(0, m_combo->findData(kEntry));  // before the entry
        m_combo->insertItem(i, QFileInfo(path).fileName() + QLatin1Char('/'), path);
        m_combo->setItemData(i, tr("Your images: %1 (one subfolder per class)").arg(path), Qt::ToolTipRole);
    }
    return i;
}

bool ImageFolderEntry::isEntry(int index) const { return m_combo->itemData(index).toString() == kEntry; }

QString ImageFolderEntry::addFolder(const QString& folder) {
    const QString path = QDir::cleanPath(folder);
    if (!isImageFolder(path.toStdString())) return tr("'%1' is not a folder").arg(path);
    const int i = insertFolder(path);
    m_combo->setCurrentIndex(i);
    m_last = i;
    return {};
}

}  // namespace saccade::ui
