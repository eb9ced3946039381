#include "ui/analysis/cost_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/analysis_job.h"
#include "ui/charts/cost_chart.h"
#include "ui/view_export.h"

namespace saccade::ui {

CostPanel::CostPanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("costPanel"));
    buildJobControls(tr("Measure the cost"), QStringLiteral("costButton"));
    m_unit = new QComboBox(this);
    m_unit->addItem(tr("time per image (measured)"));
    m_unit->addItem(tr("FLOPs per image (counted)"));
    m_notes = statusLabel();
    m_notes->setText(tr("Open a model on the Attention page, then measure what each rule costs per stage."));
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chart = new CostChart(this);
    m_export = makeExportButton(
        this, {{tr("Export the cost chart"), QStringLiteral("cost.png"), tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)"),
                [this](const QString& p) { return exportChart(p); }},
               {tr("Export the cost report"), QStringLiteral("cost.json"), tr("JSON (*.json)"), [this](const QString& p) { return exportJson(p); }}});
    m_export->setEnabled(false);
    setTabOrder(m_export, cancelButton());  // Cancel after the unit and the export, as before
    auto* top = new QHBoxLayout;
    top->addWidget(runButton());
    top->addWidget(m_unit);
    top->addWidget(m_export);
    top->addStretch();
    auto* progress = new QHBoxLayout;
    progress->addWidget(progressBar(), 1);
    progress->addWidget(cancelButton());
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(progress);
    layout->addWidget(m_chart, 3);
    layout->addWidget(m_notes, 1);
    connect(m_unit, &QComboBox::currentIndexChanged, this, [this] {
        if (m_report) m_chart->setReport(*m_report, m_unit->currentIndex() == 1);
    });
}

void CostPanel::setModel(const QString& checkpoint) {
    adoptModel(checkpoint);
    m_notes->setText(tr("Model: %1. Measure what each rule costs per stage.").arg(modelName()));
}

void CostPanel::clearResult() {
    m_report.reset();
    m_chart->clear();
    m_export->setEnabled(false);
}

QString CostPanel::notesText() const { return m_notes->text(); }
void CostPanel::showFlops(bool flops) { m_unit->setCurrentIndex(flops ? 1 : 0); }

void CostPanel::run() {
    if (modelCheckpoint().isEmpty()) return m_notes->setText(tr("Open a model on the Attention page first."));
    CostOptions o;
    o.model = modelCheckpoint().toStdString();
    auto report = std::make_shared<CostReport>();
    auto work = [o, report](const Progress& progress) -> QString {
        auto r = profileCost(o, progress);
        if (!r) return QString::fromStdString(r.error());
        *report = std::move(r).value();
        return {};
    };
    startJob(work, [this, report] {
        m_report = report;
        showReport();
    }, tr("Measuring every stage (batch %1, median of %2 passes)…").arg(o.batch).arg(o.repeats));
}

void CostPanel::showReport() {
    m_export->setEnabled(true);
    m_chart->setReport(*m_report, m_unit->currentIndex() == 1);
    QString notes = tr("%1 architecture on %2, %3 thread(s), batch %4. Per image:<ul>")
                        .arg(QString::fromStdString(m_report->modelType), QString::fromStdString(m_report->device))
                        .arg(m_report->threads).arg(m_report->batch);
    for (const auto& r : m_report->rules)
        notes += tr("<li><b>%1 / %2</b>: %3 ms, %4 MFLOP. %5</li>")
                     .arg(QString::fromStdString(r.variant), QString::fromStdString(r.rule))
                     .arg(r.msPerImage, 0, 'f', 3).arg(r.mflopsPerImage, 0, 'f', 2)
                     .arg(QString::fromStdString(r.note).toHtmlEscaped());
    m_notes->setText(notes + QStringLiteral("</ul>"));
}

QString CostPanel::exportChart(const QString& path) {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportView(*m_chart, m_chart->csv(), path, {},
                      {tr("What each rule costs per stage of the forward pass"), plainText(m_notes->text())});
}

QString CostPanel::exportJson(const QString& path) const {
    if (!m_report) return tr("nothing to export: nothing measured yet");
    return exportJsonFile(costReportToJson(*m_report), path);
}

}  // namespace saccade::ui
