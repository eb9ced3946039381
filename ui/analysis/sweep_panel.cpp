#include "ui/analysis/sweep_panel.h"
#include "ui/number_format.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "ui/analysis_job.h"
#include "analysis/runs/boundary_sweep.h"
#include "ui/charts/series_chart.h"
#include "ui/charts/sweep_map_view.h"
#include "data/dataset.h"
#include "models/model_input.h"
#include "ui/view_export.h"

namespace saccade::ui {

namespace {

constexpr int kWorstRows = 15;


}  // namespace

SweepPanel::SweepPanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("sweepPanel"));
    buildOptions();
    buildJobControls(tr("Sweep"), QStringLiteral("sweepButton"));
    m_summary = statusLabel();
    m_summary->setText(tr("Open a model on the Attention page, then sweep a probe across its cells."));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buildResultViews();
    buildLayout();
    connectSignals();
}

// The probe, the runs, the metric the map shows, and a series to repeat the sweep over.
void SweepPanel::buildOptions() {
    m_object = new QComboBox(this);
    m_object->addItem(tr("test item"), QStringLiteral("item"));
    m_object->addItem(tr("blob (no class)"), QStringLiteral("blob"));
    m_object->setToolTip(tr("A test image's object, resized, or a small disc like a defect"));
    m_item = new QSpinBox(this);
    m_item->setRange(0, 9999);
    m_item->setPrefix(tr("test item #"));
    m_size = new QSpinBox(this);
    m_size->setRange(0, 100);
    m_size->setSpecialValueText(tr("auto"));
    m_size->setToolTip(tr("Auto: one cell (items at least 20 px)"));
    m_size->setSuffix(tr(" px"));
    m_distractors = new QSpinBox(this);
    m_distractors->setRange(0, 40);
    m_distractors->setSuffix(tr(" clutter"));
    m_runs = new QSpinBox(this);
    m_runs->setRange(0, 1000);
    m_runs->setValue(kSweepRuns);  // the CLI's and the report's default too
    m_runs->setSuffix(tr(" runs each"));
    m_metric = new QComboBox(this);
    for (auto [m, label] : {std::pair{SweepMetric::SampleAccuracy, tr("sampled runs right")},
                            std::pair{SweepMetric::DeterministicAccuracy, tr("deterministic rule right")},
                            std::pair{SweepMetric::HitRate, tr("hit rate of the runs")},
                            std::pair{SweepMetric::DeterministicHit, tr("deterministic rule hits")},
                            std::pair{SweepMetric::Mass, tr("attention mass on the object")}})
        m_metric->addItem(label, QString::fromStdString(sweepMetricName(m)));
    m_metric->setMinimumContentsLength(12);
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_vary = new QComboBox(this);
    m_vary->addItem(tr("one sweep"), QString());
    m_vary->addItem(tr("object size series"), QStringLiteral("size"));
    m_vary->addItem(tr("clutter series"), QStringLiteral("distractors"));
    m_values = new QLineEdit(QStringLiteral("8,12,16,20,28"), this);
    m_values->setToolTip(tr("The sizes (px) or clutter counts of the series, comma-separated"));
    m_values->setEnabled(false);
}

// The failure map, the profile and series charts, the worst positions and the exports.
void SweepPanel::buildResultViews() {
    m_map = new SweepMapView(this);
    m_profile = new SeriesChart(this);
    m_profile->setObjectName(QStringLiteral("sweepProfile"));
    m_seriesChart = new SeriesChart(this);
    m_seriesChart->setObjectName(QStringLiteral("sweepSeries"));
    m_charts = new QTabWidget(this);
    m_charts->addTab(m_profile, tr("Along dx"));
    m_charts->addTab(m_seriesChart, tr("Series"));
    m_worst = new QTableWidget(0, 6, this);
    m_worst->setObjectName(QStringLiteral("worstPositions"));
    // Two-line titles: the table fits its column beside the map, in a presentation's large type too.
    m_worst->setHorizontalHeaderLabels({tr("dx"), tr("dy"), tr("deter-\nministic"), tr("sampled\nright"), tr("hit\nrate"), tr("mass")});
    m_worst->verticalHeader()->setVisible(false);
    m_worst->setMinimumWidth(150);
    m_worst->horizontalHeader()->setStretchLastSection(true);
    m_worst->resizeColumnsToContents();  // every header visible before the first sweep too
    m_worst->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_worst->setSelectionBehavior(QAbstractItemView::SelectRows);
    const QString views = tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)");
    m_export = makeExportButton(
        this, {{tr("Export the failure map"), QStringLiteral("failure-map.png"), views, [this](const QString& p) { return exportMap(p); }},
               {tr("Export the profile along dx"), QStringLiteral("failure-profile.png"), views, [this](const QString& p) { return exportProfile(p); }},
               {tr("Export the series"), QStringLiteral("sweep-series.png"), views, [this](const QString& p) { return exportSeries(p); }},
               {tr("Export the worst positions"), QStringLiteral("worst-positions.csv"), tr("CSV (*.csv);;PNG (*.png);;SVG (*.svg)"),
                [this](const QString& p) { return exportWorst(p); }},
               {tr("Export the sweep"), QStringLiteral("sweep.json"), tr("JSON (*.json)"), [this](const QString& p) { return exportJson(p); }}});
    m_export->setEnabled(false);
}

// The options, buttons and worst positions on the left; the map over the charts on the right.
void SweepPanel::buildLayout() {
    auto* form = new QFormLayout;
    form->addRow(tr("Object"), m_object);
    form->addRow(QString(), m_item);
    form->addRow(tr("Size"), m_size);
    form->addRow(tr("Background"), m_distractors);
    form->addRow(tr("Runs"), m_runs);
    form->addRow(tr("Map"), m_metric);
    auto* series = new QHBoxLayout;
    series->addWidget(m_vary);
    series->addWidget(m_values, 1);
    form->addRow(tr("Repeat"), series);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton());
    buttons->addWidget(cancelButton());
    buttons->addWidget(m_export);
    auto* controls = new QWidget(this);
    auto* left = new QVBoxLayout(controls);
    left->addLayout(form);
    left->addLayout(buttons);
    left->addWidget(progressBar());
    left->addWidget(m_summary);
    left->addWidget(m_worst, 1);
    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(m_map);
    right->addWidget(m_charts);
    m_profile->setMinimumHeight(230);
    right->setSizes({440, 260});
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(controls, 2);
    layout->addWidget(right, 3);
}

void SweepPanel::connectSignals() {
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        m_map->setMetric(metric());
        if (m_result) showResult();
    });
    connect(m_vary, &QComboBox::currentIndexChanged, this, [this] { m_values->setEnabled(!m_vary->currentData().toString().isEmpty()); });
    connect(m_object, &QComboBox::currentIndexChanged, this, [this] { m_item->setEnabled(m_object->currentData() == QStringLiteral("item")); });
    connect(m_map, &SweepMapView::positionClicked, this, [this](int dx, int dy) {
        showProfile(dy);
        choose(dx, dy);
    });
    connect(m_worst, &QTableWidget::cellClicked, this, [this](int row, int) {
        const int dx = m_worst->item(row, 0)->text().toInt(), dy = m_worst->item(row, 1)->text().toInt();
        m_map->setSelected(dx, dy);
        choose(dx, dy);
    });
}

void SweepPanel::setModel(const QString& checkpoint, const QString& dataset) {
    adoptModel(checkpoint, dataset);
    m_summary->setText(tr("Model: %1. Sweep a probe across its cells.").arg(modelName()));
}

void SweepPanel::clearResult() {
    m_result.reset();
    m_series.clear();
    m_map->clear();
    m_profile->clear();
    m_seriesChart->clear();
    m_worst->setRowCount(0);
    m_export->setEnabled(false);
}

void SweepPanel::setRuns(int runs) { m_runs->setValue(runs); }
void SweepPanel::setObject(const QString& object) { m_object->setCurrentIndex(m_object->findData(object)); }
SweepMetric SweepPanel::metric() const { return *parseSweepMetric(m_metric->currentData().toString().toStdString()); }

void SweepPanel::setSeries(const QString& vary, const QString& values) {
    m_vary->setCurrentIndex(std::max(0, m_vary->findData(vary)));
    m_values->setText(values);
}

void SweepPanel::run() {
    if (modelCheckpoint().isEmpty()) return m_summary->setText(tr("Open a model on the Attention page first."));
    const std::string checkpoint = modelCheckpoint().toStdString(), dataset = modelDataset().toStdString();
    const bool item = m_object->currentData() == QStringLiteral("item");
    const int size = m_size->value(), distractors = m_distractors->value(), runs = m_runs->value();
    const std::int64_t itemIndex = m_item->value();
    const QString vary = m_vary->currentData().toString();
    std::vector<int> values;
    if (!vary.isEmpty()) {
        for (const auto& v : m_values->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            values.push_back(v.trimmed().toInt(&ok));
            if (!ok || values.back() < 0)
                return m_summary->setText(tr("<span style='color:#c33'>The series values must be non-negative integers, "
                                             "comma-separated: '%1'</span>").arg(v.toHtmlEscaped()));
        }
        if (values.empty()) return m_summary->setText(tr("Give the series values, e.g. 8,12,16,20,28."));
    }
    auto result = std::make_shared<SweepResult>();
    auto summaries = std::make_shared<std::vector<SweepSummary>>();
    auto work = [=](const Progress& progress) -> QString {
        auto model = loadAttentionModel(checkpoint, "auto");
        if (!model) return QString::fromStdString(model.error());
        auto cell = modelCellSize(**model);
        if (!cell) return QString::fromStdString(cell.error());
        std::shared_ptr<const Dataset> source;
        if (item || distractors > 0 || vary == QStringLiteral("distractors")) {
            auto d = openDatasetFor(**model, dataset, 1);  // a photo folder fitted to the model
            if (!d) return QString::fromStdString(d.error());
            source = *d;
        }
        const std::vector<int> steps = vary.isEmpty() ? std::vector<int>{0} : values;
        for (size_t i = 0; i < steps.size(); ++i) {
            SweepOptions o;
            o.runs = runs;
            auto& p = o.probe;
            p.canvas = (*model)->imageSize();
            p.cellSize = *cell;
            p.object = item ? ProbeObject::Item : ProbeObject::Blob;
            p.itemIndex = itemIndex;
            p.distractors = vary == QStringLiteral("distractors") ? steps[i] : distractors;
            p.objectSize = vary == QStringLiteral("size") ? steps[i] : size > 0 ? size : defaultProbeSize(*cell, p.object);
            setDefaultSweepRanges(p);  // a larger object leaves fewer offsets on the canvas
            const double n = double(steps.size());
            auto r = runBoundarySweep(**model, o, source ? source->objectSource() : nullptr,
                                      [&](double f) { return progress((double(i) + f) / n); });
            if (!r) return QString::fromStdString(r.error());
            summaries->push_back(summariseSweep(steps[i], *r));
            *result = std::move(r).value();
        }
        return {};
    };
    startJob(work, [this, result, summaries, vary, dataset] {
        m_result = result;
        m_resultDataset = QString::fromStdString(dataset);
        m_series = vary.isEmpty() ? std::vector<SweepSummary>{} : *summaries;
        m_seriesName = vary;
        m_map->setResult(*result, metric());
        m_profileRow = 0;
        showResult();
    }, vary.isEmpty() ? tr("Sweeping…") : tr("Sweeping at %1 values…").arg(values.size()));
}

void SweepPanel::showResult() {
    const auto& r = *m_result;
    m_export->setEnabled(true);
    const QString det = QString::fromStdString(r.deterministicRule);
    m_summary->setText(
        tr("<b>%1 positions</b> (cell %2 px, object %3 px), %4 runs each, %5 s.<br>%6 right: <b>%7</b>; sampled runs "
           "right: <b>%8</b>; hit rate: <b>%9</b>; attention mass on the object: <b>%10</b>.<br>Solid lines: the object's "
           "near edge on a grid line; dashed: its far edge. Click a square or a row to open that case.")
            .arg(r.points.size()).arg(r.probe.cellSize).arg(r.probe.objectSize).arg(r.runs).arg(r.seconds, 0, 'f', 1)
            .arg(det, formatPercent(meanSweepValue(r, SweepMetric::DeterministicAccuracy), 1),
                 formatPercent(meanSweepValue(r, SweepMetric::SampleAccuracy), 1), formatPercent(meanSweepValue(r, SweepMetric::HitRate), 1),
                 formatPercent(meanSweepValue(r, SweepMetric::Mass), 1)));
    const auto worst = worstPoints(r, metric(), kWorstRows);
    m_worst->setRowCount(int(worst.size()));
    m_worst->horizontalHeaderItem(2)->setText(det);
    for (int row = 0; row < int(worst.size()); ++row) {
        const auto& p = r.points[worst[size_t(row)]];
        const QStringList cells{QString::number(p.dx), QString::number(p.dy),
                                p.truth < 0 ? QStringLiteral("–") : p.deterministicLabel == p.truth ? tr("right") : tr("wrong"),
                                formatPercent(p.sampleAccuracy, 1), formatPercent(p.sampleRuns ? p.hitRate : -1, 1), formatPercent(p.mass, 1)};
        for (int c = 0; c < cells.size(); ++c) m_worst->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    m_worst->resizeColumnsToContents();
    showProfile(m_profileRow);
    // A size or clutter series: the means of each sweep against the value; the map shows the last.
    QVector<SeriesChart::Series> series{{det + tr(" right"), {}}, {tr("sampled right"), {}}, {tr("hit rate"), {}},
                                        {tr("mass"), {}, true}};
    for (const auto& row : m_series) {
        const double values[] = {row.deterministicAccuracy, row.sampleAccuracy, row.hitRate, row.mass};
        for (int k = 0; k < 4; ++k)
            if (values[k] >= 0) series[k].points << QPointF(row.value, values[k]);
    }
    QVector<SeriesChart::Series> shown;
    for (const auto& s : series)
        if (!s.points.isEmpty()) shown << s;
    m_seriesChart->setTitles(m_series.empty() ? tr("Choose a size or clutter series under Repeat")
                                              : tr("Means over the offsets, by %1 (the map shows %2 = %3)")
                                                    .arg(m_seriesName == QStringLiteral("size") ? tr("object size") : tr("clutter pieces"),
                                                         m_seriesName).arg(m_series.back().value),
                             m_seriesName == QStringLiteral("size") ? tr("object size (px)") : tr("clutter pieces"), {});
    m_seriesChart->setSeries(shown, 0, 1);
    m_charts->setCurrentWidget(m_series.empty() ? static_cast<QWidget*>(m_profile) : m_seriesChart);
}

void SweepPanel::showProfile(int dy) {
    m_profileRow = dy;
    if (!m_result) return;
    QVector<SeriesChart::Series> series{{QString::fromStdString(m_result->deterministicRule) + tr(" right"), {}},
                                        {tr("sampled right"), {}}, {tr("hit rate"), {}}, {tr("mass"), {}, true}};
    for (const auto& p : m_result->points) {
        if (p.dy != dy) continue;
        const double values[] = {sweepValue(p, SweepMetric::DeterministicAccuracy), p.sampleAccuracy,
                                 p.sampleRuns ? p.hitRate : -1, p.mass};
        for (int s = 0; s < 4; ++s)
            if (values[s] >= 0) series[s].points << QPointF(p.dx, values[s]);
    }
    QVector<SeriesChart::Series> shown;
    for (const auto& s : series)
        if (!s.points.isEmpty()) shown << s;
    m_profile->setTitles(tr("Along dx at dy = %1").arg(dy), tr("dx (px from the grid line)"), {});
    m_profile->setSeries(shown, 0, 1);
}

void SweepPanel::choose(int dx, int dy) {
    if (!m_result) return;
    ProbeOptions p = m_result->probe;
    p.dxMin = p.dxMax = dx;
    p.dyMin = p.dyMax = dy;
    std::shared_ptr<const Dataset> source;
    if (p.object == ProbeObject::Item || p.distractors > 0) {
        auto d = openDataset(m_resultDataset.toStdString());
        if (!d) return m_summary->setText(QString::fromStdString(d.error()));
        source = *d;
    }
    auto probes = makeProbes(p, source ? source->objectSource() : nullptr);
    if (!probes || probes->empty()) return;
    const auto& s = probes->front().sample;
    Q_EMIT caseChosen(s.image, QStringLiteral("probe:%1,%2").arg(dx).arg(dy), GroundTruth{s.label, {s.box}},
                      std::max(1, m_result->runs), quint64(m_result->seed));
}

QString SweepPanel::exportMap(const QString& path) {
    if (!m_result) return tr("nothing to export: no sweep yet");
    return exportView(*m_map, m_map->csv(), path, {}, {tr("Boundary sweep: the answer at each offset"), plainText(m_summary->text())});
}

QString SweepPanel::exportProfile(const QString& path) {
    if (!m_result) return tr("nothing to export: no sweep yet");
    return exportView(*m_profile, m_profile->csv(QStringLiteral("dx")), path, {},
                      {tr("Boundary sweep: the profile along the row"), plainText(m_summary->text())});
}

QString SweepPanel::exportSeries(const QString& path) {
    if (m_series.empty()) return tr("nothing to export: no size or clutter series yet");
    return exportView(*m_seriesChart, m_seriesChart->csv(m_seriesName), path, {},
                      {tr("Boundary sweep: %1").arg(m_seriesName), plainText(m_summary->text())});
}

QString SweepPanel::exportWorst(const QString& path) const {
    if (!m_result) return tr("nothing to export: no sweep yet");
    return exportTable(*m_worst, path);
}

QString SweepPanel::exportJson(const QString& path) const {
    if (!m_result) return tr("nothing to export: no sweep yet");
    return exportJsonFile(sweepToJson(*m_result), path);
}

}  // namespace saccade::ui
