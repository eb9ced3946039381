#pragma once
// MapTablePanel ("Maps" on the Probes & cost page): attention beside attribution on the same
// ground truth (issue 37). On the model open on the Attention page and the first N test images of
// its dataset, every map ticked (analysis/image_maps.h: attention, rollout, the attribution
// methods) is scored as attention is: mass in the box and the pointing game, the deletion and
// insertion curves and their areas, and the model-randomisation sanity check, by compareMaps
// (analysis/map_comparison.h), as `saccade-cli faithfulness --methods` does. A map the model does
// not give stays listed but off, with the model's reason as its tooltip. The table has one row per
// map, the best value of each column in bold; the curves are drawn beside it. The job loads its
// own copy of the model on the panel's job thread (JobPanel), as the other panels of the page do.

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <memory>

#include "analysis/attribution/map_comparison.h"

#include "ui/job_panel.h"

class QCheckBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

class SeriesChart;

class MapTablePanel : public JobPanel {
    Q_OBJECT

public:
    explicit MapTablePanel(QWidget* parent = nullptr);

    /// The model and its dataset. `maps`: every map name (mapMethods()) and why the model does not
    /// give it, empty when it does (ModelCard::maps); a map not listed is off.
    void setModel(const QString& checkpoint, const QString& dataset, const QList<QPair<QString, QString>>& maps);
    /// Ticks exactly these maps, of those the model gives.
    void setMethods(const QStringList& methods);
    /// The ticked maps the model gives, in the table's order.
    QStringList methods() const;
    /// A map's checkbox; null for a name that is no map.
    QCheckBox* methodBox(const QString& method) const;
    void setImages(int images, int sanityImages);
    void run() override;

    const MapComparisonReport* report() const { return m_report.get(); }
    QTableWidget* table() const { return m_table; }
    SeriesChart* deletionChart() const { return m_deletion; }
    SeriesChart* insertionChart() const { return m_insertion; }
    QString caveatText() const;
    /// The line under the table: the uniform map's mass, what bold and the sanity flag mean.
    QString referenceText() const;

    QString exportTable(const QString& path) const;
    QString exportDeletion(const QString& path);
    QString exportInsertion(const QString& path);
    QString exportJson(const QString& path) const;

private:
    QWidget* buildOptions();
    void showReport();
    /// Sizes the columns to their contents and keeps them all in view.
    void fitTable();
    void clearResult() override;

    QList<QCheckBox*> m_boxes;  ///< one per mapMethods() name, in its order
    QSpinBox* m_images = nullptr;
    QSpinBox* m_sanity = nullptr;
    QLabel* m_caveat = nullptr;
    QLabel* m_summary = nullptr;  ///< the status label
    QLabel* m_reference = nullptr;
    QTableWidget* m_table = nullptr;
    SeriesChart* m_deletion = nullptr;
    SeriesChart* m_insertion = nullptr;
    QWidget* m_export = nullptr;
    std::shared_ptr<MapComparisonReport> m_report;
};

}  // namespace saccade::ui
