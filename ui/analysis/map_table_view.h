#pragma once
// How the maps table (MapTablePanel) shows a MapComparisonReport: one row per map with its mass in
// the box, pointing game, deletion and insertion areas and sanity check, the best value of each
// column in bold and a colour swatch per map; and one curve per map for the deletion and insertion
// charts in its swatch's colour. A figure that was not measured reads "not measured", never 0.

#include <QString>
#include <QVector>

#include "analysis/attribution/map_comparison.h"
#include "ui/charts/series_chart.h"

class QTableWidget;

namespace saccade::ui {

/// The table's columns.
enum MapTableColumn { kMapName, kMapMass, kMapPointing, kMapDeletion, kMapInsertion, kMapSpearman, kMapFlagged, kMapColumns };

/// Sets the header labels and tooltips of an empty table of kMapColumns columns.
void setMapTableHeaders(QTableWidget& table);
/// One row per map of `report`, in its order; the best measured value of each figure's column in
/// bold (mass, pointing and insertion highest; deletion and the sanity Spearman lowest).
void fillMapTable(QTableWidget& table, const MapComparisonReport& report);
/// Each map's mean deletion (or insertion) curve over the report's fractions, in the colour of its
/// row's swatch (the table is the charts' key).
QVector<SeriesChart::Series> mapCurves(const MapComparisonReport& report, bool insertion);
/// The line under the table: the uniform map's mass in the box, what bold and the flag mean, and
/// the sanity check's images or why it did not run.
QString mapTableReference(const MapComparisonReport& report);

}  // namespace saccade::ui
