#include "ui/browser_table.h"

#include <QHeaderView>
#include <QTableWidget>

namespace saccade::ui {

QTableWidget* makeBrowserTable(QWidget* parent, const QString& name, const QStringList& headers) {
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setObjectName(name);
    t->setHorizontalHeaderLabels(headers);
    // The stretched last column never narrower than this (Qt's 100 px made narrow tables scroll sideways).
    t->horizontalHeader()->setDefaultSectionSize(48);
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->setVisible(false);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setMinimumWidth(120);
    t->resizeColumnsToContents();  // an empty table's columns as wide as their titles, not 100 px each
    return t;
}

}  // namespace saccade::ui
