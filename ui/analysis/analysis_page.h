#pragma once
// AnalysisPage ("Probes & cost"): the boundary-case explorer, the faithfulness of attention, its
// maps beside attribution, and what selection costs, for the model open on the Attention page.

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "data/image.h"
#include "trace/output_kind.h"
#include "trace/trace.h"

class QLabel;
class QStackedWidget;
class QTabWidget;

namespace saccade::ui {

class CaptionFaithfulnessPanel;
class CaptionSweepPanel;
class CostPanel;
class FaithfulnessPanel;
class MapTablePanel;
class SweepPanel;

class AnalysisPage : public QWidget {
    Q_OBJECT

public:
    explicit AnalysisPage(QWidget* parent = nullptr);

    /// The model to analyse: its checkpoint and dataset, its rules, what its runs output
    /// (a captioner's Boundary sweep and Faithfulness tabs show its word-by-word panels) and the maps it
    /// gives (ModelCard::maps: name, and why not where it does not).
    void setModel(const QString& checkpoint, const QString& dataset, const QStringList& rules = {},
                  const QString& deterministicRule = {}, saccade::OutputKind outputKind = saccade::OutputKind::Class,
                  const QList<QPair<QString, QString>>& maps = {});

    /// A folder of images the user opened on the Attention page: a model without a dataset of its
    /// own is swept and measured on it (the Sweep, Faithfulness and Maps tabs).
    void useFolder(const QString& folder);

    SweepPanel* sweepPanel() const { return m_sweep; }
    FaithfulnessPanel* faithfulnessPanel() const { return m_faithfulness; }
    CaptionSweepPanel* captionSweepPanel() const { return m_captionSweep; }
    CaptionFaithfulnessPanel* captionFaithfulnessPanel() const { return m_captionFaithfulness; }
    /// The Boundary sweep tab's page: the classifiers' panel or the captioners'.
    QStackedWidget* sweepTab() const { return m_sweepStack; }
    /// The Faithfulness tab's page: the classifiers' panel or the captioners'.
    QStackedWidget* faithfulnessTab() const { return m_faithfulnessStack; }
    CostPanel* costPanel() const { return m_cost; }
    /// Attention beside attribution: the maps table.
    MapTablePanel* mapTablePanel() const { return m_maps; }
    QTabWidget* tabs() const { return m_tabs; }

Q_SIGNALS:
    void caseChosen(const saccade::Image& image, const QString& id, const saccade::GroundTruth& truth, int runs,
                    quint64 seed);

private:
    // The model the panels measure, as setModel gave it.
    QString m_checkpoint, m_ownDataset, m_deterministicRule;
    QString m_folder;  ///< the folder useFolder gave, for the model without a dataset
    QStringList m_rules;
    QList<QPair<QString, QString>> m_mapList;
    QLabel* m_model = nullptr;
    QTabWidget* m_tabs = nullptr;
    SweepPanel* m_sweep = nullptr;
    FaithfulnessPanel* m_faithfulness = nullptr;
    CostPanel* m_cost = nullptr;
    MapTablePanel* m_maps = nullptr;
    CaptionSweepPanel* m_captionSweep = nullptr;
    CaptionFaithfulnessPanel* m_captionFaithfulness = nullptr;
    QStackedWidget* m_sweepStack = nullptr;
    QStackedWidget* m_faithfulnessStack = nullptr;
};

}  // namespace saccade::ui
