#include "ui/file_dialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>

namespace saccade::ui {

namespace {

QString& folder() {
    static QString last;  // GUI thread only
    return last;
}

QString chosen(const QString& path) {
    if (!path.isEmpty()) rememberDialogFolder(path);
    return path;
}

}  // namespace

QString lastDialogFolder() {
    const QString& last = folder();
    return !last.isEmpty() && QFileInfo(last).isDir() ? last : QDir::homePath();
}

void rememberDialogFolder(const QString& fileOrFolder) {
    if (fileOrFolder.isEmpty()) return;
    const QFileInfo info(fileOrFolder);
    folder() = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
}

QString dialogStart(const QString& fileName) {
    if (fileName.isEmpty()) return lastDialogFolder();
    if (fileName.contains(QLatin1Char('/'))) return fileName;  // a path the caller chose
    return QDir(lastDialogFolder()).filePath(fileName);
}

QString openFileDialog(QWidget* parent, const QString& title, const QString& filter) {
    return chosen(QFileDialog::getOpenFileName(parent, title, dialogStart(), filter));
}

QString saveFileDialog(QWidget* parent, const QString& title, const QString& fileName, const QString& filter) {
    return chosen(QFileDialog::getSaveFileName(parent, title, dialogStart(fileName), filter));
}

QString folderDialog(QWidget* parent, const QString& title) {
    return chosen(QFileDialog::getExistingDirectory(parent, title, dialogStart()));
}

}  // namespace saccade::ui
