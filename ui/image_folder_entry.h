#pragma once
// ImageFolderEntry: the "Image folder…" entry at the end of a dataset combo (the Images and
// Dataset tabs). Choosing it asks for a folder of the user's images (FOLDER/CLASS_NAME/IMAGE) and
// lists that folder before the entry; a cancelled dialog leaves the combo as it was. Items carry
// the dataset name (or the folder's path) as their data.

#include <QObject>
#include <QString>
#include <QStringList>

class QComboBox;

namespace saccade::ui {

class ImageFolderEntry : public QObject {
    Q_OBJECT

public:
    /// Watches `combo` (its parent owns this object); call append() after each refill.
    ImageFolderEntry(QComboBox* combo, QString tooltip);

    /// Adds the entry at the end of the combo, and lists `folders` before it (without choosing
    /// one); then notes the current item (noteCurrent).
    void append(const QStringList& folders = {});
    /// Remembers the current item as the one a cancelled dialog returns to; call after choosing
    /// an item with the combo's signals blocked.
    void noteCurrent();
    /// Lists `folder` before the entry (once) and selects it; an error when it is not a folder.
    QString addFolder(const QString& folder);
    /// Whether item `index` is the entry itself (not a dataset).
    bool isEntry(int index) const;

Q_SIGNALS:
    void failed(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    int insertFolder(const QString& path);  ///< lists it before the entry once; its index

    QComboBox* m_combo;
    QString m_tooltip;
    int m_last = 0;  ///< the item to return to when the dialog is cancelled
};

}  // namespace saccade::ui
