#pragma once
// The read-only tables the panels list rows in (rules, disagreeing images, flagged images):
// whole-row single selection, no row numbers, the last column stretched.

#include <QString>
#include <QStringList>

class QTableWidget;
class QWidget;

namespace saccade::ui {

/// A new table named `name` with these column headers.
QTableWidget* makeBrowserTable(QWidget* parent, const QString& name, const QStringList& headers);

}  // namespace saccade::ui
