#include "ui/analysis/analysis_page.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QStackedWidget>
#include <QTabWidget>
#include <QVBoxLayout>

#include "ui/analysis/caption_faithfulness_panel.h"
#include "ui/analysis/caption_sweep_panel.h"
#include "ui/analysis/cost_panel.h"
#include "ui/analysis/faithfulness_panel.h"
#include "ui/analysis/map_table_panel.h"
#include "ui/analysis/sweep_panel.h"

namespace saccade::ui {

AnalysisPage::AnalysisPage(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("analysisPage"));
    m_model = new QLabel(tr("No model yet: open one on the Attention page."), this);
    m_tabs = new QTabWidget(this);
    m_sweep = new SweepPanel(this);
    m_faithfulness = new FaithfulnessPanel(this);
    m_cost = new CostPanel(this);
    m_maps = new MapTablePanel(this);
    m_captionSweep = new CaptionSweepPanel(this);
    m_captionFaithfulness = new CaptionFaithfulnessPanel(this);
    // One Boundary sweep tab and one Faithfulness tab, each the view of the model's output kind: a
    // classifier's answer per offset and maps, or a captioner's words.
    m_sweepStack = new QStackedWidget(this);
    m_sweepStack->addWidget(m_sweep);
    m_sweepStack->addWidget(m_captionSweep);
    m_faithfulnessStack = new QStackedWidget(this);
    m_faithfulnessStack->addWidget(m_faithfulness);
    m_faithfulnessStack->addWidget(m_captionFaithfulness);
    m_tabs->addTab(m_sweepStack, tr("Boundary sweep"));
    m_tabs->addTab(m_faithfulnessStack, tr("Faithfulness"));
    m_tabs->addTab(m_maps, tr("Maps"));
    m_tabs->setTabToolTip(m_tabs->indexOf(m_maps), tr("Attention beside attribution: every map scored on the same boxes"));
    m_tabs->addTab(m_cost, tr("Cost"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_model);
    layout->addWidget(m_tabs, 1);
    connect(m_sweep, &SweepPanel::caseChosen, this, &AnalysisPage::caseChosen);
    connect(m_captionSweep, &CaptionSweepPanel::caseChosen, this, &AnalysisPage::caseChosen);
}

void AnalysisPage::setModel(const QString& checkpoint, const QString& dataset, const QStringList& rules,
                            const QString& deterministicRule, saccade::OutputKind outputKind,
                            const QList<QPair<QString, QString>>& maps) {
    m_checkpoint = checkpoint;
    m_ownDataset = dataset;
    m_rules = rules;
    m_deterministicRule = deterministicRule;
    m_mapList = maps;
    m_folder.clear();
    // Every panel first, while its tab is enabled: each stops a job of the previous model.
    m_model->setText(dataset.isEmpty()
                         ? tr("Model: <b>%1</b> (no dataset of its own), the one open on the Attention page.")
                               .arg(QFileInfo(checkpoint).fileName().toHtmlEscaped())
                         : tr("Model: <b>%1</b> (dataset %2), the one open on the Attention page.")
                               .arg(QFileInfo(checkpoint).fileName().toHtmlEscaped(), dataset.toHtmlEscaped()));
    m_sweep->setModel(checkpoint, dataset);
    m_captionSweep->setModel(checkpoint, dataset);
    m_faithfulness->setModel(checkpoint, dataset, rules, deterministicRule);
    m_captionFaithfulness->setModel(checkpoint, dataset);
    m_cost->setModel(checkpoint);
    m_maps->setModel(checkpoint, dataset, maps);
    // A captioner sweeps an object under its words and measures faithfulness word by word; the
    // classifiers' sweep scores one answer per image, which a caption is not.
    const bool caption = saccade::traitsOf(outputKind).wordSteps;
    m_sweepStack->setCurrentWidget(caption ? static_cast<QWidget*>(m_captionSweep) : m_sweep);
    m_faithfulnessStack->setCurrentWidget(caption ? static_cast<QWidget*>(m_captionFaithfulness) : m_faithfulness);
    m_tabs->setTabToolTip(m_tabs->indexOf(m_sweepStack), caption ? tr("A captioner's sweep: an object moves under its words")
                                                                 : tr("A classifier's sweep: its answer at every offset"));
    QWidget* shown = m_tabs->currentWidget();  // disabling it would move the tabs on by themselves
    m_tabs->setTabEnabled(m_tabs->indexOf(m_maps), !caption);
    m_tabs->setTabToolTip(m_tabs->indexOf(m_maps), caption ? tr("For classifiers: a map is of one answer")
                                                           : tr("Attention beside attribution: every map scored on the same boxes"));
    m_tabs->setCurrentWidget(m_tabs->isTabEnabled(m_tabs->indexOf(shown)) ? shown : m_sweepStack);
}

void AnalysisPage::useFolder(const QString& folder) {
    // A model's own dataset comes first; the folder already measured keeps its running jobs.
    if (m_checkpoint.isEmpty() || !m_ownDataset.isEmpty() || folder == m_folder) return;
    m_folder = folder;
    m_model->setText(tr("Model: <b>%1</b> (no dataset of its own), measured on the folder <b>%2</b> open on the "
                        "Attention page.")
                         .arg(QFileInfo(m_checkpoint).fileName().toHtmlEscaped(), QDir::toNativeSeparators(folder).toHtmlEscaped()));
    m_sweep->setModel(m_checkpoint, folder);
    m_faithfulness->setModel(m_checkpoint, folder, m_rules, m_deterministicRule);
    m_maps->setModel(m_checkpoint, folder, m_mapList);
}

}  // namespace saccade::ui
