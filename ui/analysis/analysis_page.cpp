#include "analysis/analysis_page.h"

#include <QFileInfo>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

#include "analysis/cost_panel.h"
#include "analysis/faithfulness_panel.h"
#include "analysis/sweep_panel.h"

namespace saccade::ui {

AnalysisPage::AnalysisPage(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("analysisPage"));
    m_model = new QLabel(tr("No model yet: open one on the Attention page."), this);
    m_tabs = new QTabWidget(this);
    m_sweep = new SweepPanel(this);
    m_faithfulness = new FaithfulnessPanel(this);
    m_cost = new CostPanel(this);
    m_tabs->addTab(m_sweep, tr("Boundary sweep"));
    m_tabs->addTab(m_faithfulness, tr("Faithfulness"));
    m_tabs->addTab(m_cost, tr("Cost"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_model);
    layout->addWidget(m_tabs, 1);
    connect(m_sweep, &SweepPanel::caseChosen, this, &AnalysisPage::caseChosen);
}

void AnalysisPage::setModel(const QString& checkpoint, const QString& dataset, const QStringList& rules,
                            const QString& deterministicRule) {
    m_model->setText(tr("Model: <b>%1</b> (dataset %2), the one open on the Attention page.")
                         .arg(QFileInfo(checkpoint).fileName(), dataset));
    m_sweep->setModel(checkpoint, dataset);
    m_faithfulness->setModel(checkpoint, dataset, rules, deterministicRule);
    m_cost->setModel(checkpoint);
}

}  // namespace saccade::ui
