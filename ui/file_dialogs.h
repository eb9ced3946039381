#pragma once
// File dialogs that open where the user last was: every open, save and folder dialog of the
// application starts in the folder the previous one was left in (the home folder at first), and
// the main window keeps that folder across runs.

#include <QString>

class QWidget;

namespace saccade::ui {

/// The folder the last dialog was left in; the home folder before any.
QString lastDialogFolder();
/// Remembers a chosen file's folder (or a chosen folder itself).
void rememberDialogFolder(const QString& fileOrFolder);
/// Where a dialog starts: a bare file name (or none) in the last folder; a path as given.
QString dialogStart(const QString& fileName = {});

/// Empty when cancelled; else the chosen path, whose folder is remembered.
QString openFileDialog(QWidget* parent, const QString& title, const QString& filter);
QString saveFileDialog(QWidget* parent, const QString& title, const QString& fileName, const QString& filter);
QString folderDialog(QWidget* parent, const QString& title);

}  // namespace saccade::ui
