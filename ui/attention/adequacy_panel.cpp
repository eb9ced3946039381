#include "ui/attention/adequacy_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "ui/charts/series_chart.h"
#include "ui/browser_table.h"
#include "ui/view_export.h"

namespace saccade::ui {

namespace {

constexpr int kShownSignalRows = 6;  // the signal table's rows in view
constexpr int kMaxFlaggedRows = 2000;  // the flagged browser's rows; the CSV and JSON have all

// One colour per signal, in adequacySignals() order; the oracle is drawn dashed in black.
const QColor kSignalColours[kAdequacySignalCount] = {QColor(30, 80, 160),  QColor(220, 120, 20), QColor(40, 160, 80),
                                                     QColor(150, 60, 160), QColor(200, 40, 60),  QColor(20, 150, 160),
                                                     QColor(120, 90, 40),  QColor(230, 90, 170)};

QString valueText(AdequacySignal signal, double v) {
    if (std::isnan(v)) return QStringLiteral("n/a");
    return QString::number(v, 'f', signalInfo(signal).unit == std::string("pixels") ? 1 : 3);
}

QString comparison(AdequacySignal signal) { return signalInfo(signal).higherIsAdequate ? QStringLiteral("≥") : QStringLiteral("≤"); }

}  // namespace

AdequacyPanel::AdequacyPanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("adequacyPanel"));
    buildOptions();
    buildJobControls(tr("Measure"), QStringLiteral("measureButton"));
    setJobInputs({m_dataset, m_limit, m_runs});
    m_summary = statusLabel();
    m_summary->setObjectName(QStringLiteral("adequacySummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buildResultViews();
    buildLayout();
    connectSignals();
    clear(tr("Measure which test images are inadequate observations: signals from N sampled runs per image "
             "that need no ground truth, and how well each sorts right answers from wrong ones."));
}

// The test split, its first N images and the sampled runs per image.
void AdequacyPanel::buildOptions() {
    m_dataset = new QComboBox(this);
    m_dataset->setToolTip(tr("The test split to measure the signals on"));
    m_dataset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_dataset->setMinimumContentsLength(6);
    m_limit = new QSpinBox(this);
    m_limit->setObjectName(QStringLiteral("adequacyLimit"));
    m_limit->setRange(20, 10000);
    m_limit->setSingleStep(100);
    m_limit->setValue(300);
    m_limit->setSuffix(tr(" images"));
    m_limit->setToolTip(tr("The first N test images"));
    m_runs = new QSpinBox(this);
    m_runs->setObjectName(QStringLiteral("adequacyRuns"));
    m_runs->setRange(2, 1000);
    m_runs->setValue(50);
    m_runs->setSuffix(tr(" runs"));
    m_runs->setToolTip(tr("Sampled runs per image; every image uses the toolbar's seed s and runs s..s+N-1"));
}

// The risk-coverage chart, the signal table (its legend), the signal and target accuracy of the
// threshold, the images it flags, and the exports.
void AdequacyPanel::buildResultViews() {
    m_chart = new SeriesChart(this);
    m_chart->setObjectName(QStringLiteral("riskCoverageChart"));
    m_chart->setTitles(tr("Risk against coverage"), tr("coverage (%)"), tr("risk (%)"));
    m_chart->setToolTip(tr("Abstaining on each signal: the risk (error rate) of the images kept against the share "
                           "kept. Colours as in the table; dashed: the oracle, every error ranked last."));
    m_chart->setMinimumHeight(170);
    m_signals = makeBrowserTable(this, QStringLiteral("signalTable"), {tr("signal"), tr("AURC"), tr("coverage"), tr("keep")});
    // Every row visible: the table is also the chart's legend.
    m_signals->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_signals->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_signals->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);  // every column in view
    m_signals->horizontalHeader()->setStretchLastSection(false);  // with every column stretched, it ran past the edge
    m_signals->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_signals->verticalHeader()->setDefaultSectionSize(m_signals->fontMetrics().height() + 6);
    // Room for the signals a model measures (at most 6 without --shifts on a model with sampled
    // runs, 4 without runs) and the two references; an unmeasured signal's row is hidden.
    m_signals->setFixedHeight(m_signals->horizontalHeader()->sizeHint().height() +
                              (kShownSignalRows + 2) * m_signals->verticalHeader()->defaultSectionSize() + 4);
    m_signals->setToolTip(tr("Area under each risk-coverage curve (lower is better) and the coverage a threshold "
                             "keeps at the target accuracy; click a row to choose the signal"));
    m_signal = new QComboBox(this);
    m_signal->setObjectName(QStringLiteral("signalChooser"));
    for (const auto& s : adequacySignals()) m_signal->addItem(QString::fromLatin1(s.key), int(s.signal));
    m_signal->setToolTip(tr("The signal whose threshold marks inadequate observations"));
    m_signal->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_signal->setMinimumContentsLength(6);
    m_target = new QDoubleSpinBox(this);
    m_target->setObjectName(QStringLiteral("targetAccuracy"));
    m_target->setRange(1, 100);
    m_target->setDecimals(1);
    m_target->setSingleStep(0.5);
    m_target->setValue(95);
    m_target->setPrefix(tr("target "));
    m_target->setSuffix(tr(" %"));
    m_target->setToolTip(tr("Target accuracy on the images kept: the threshold is the loosest one that reaches it"));
    m_threshold = new QLabel(this);
    m_threshold->setObjectName(QStringLiteral("thresholdText"));
    m_threshold->setWordWrap(true);
    m_flagged = makeBrowserTable(this, QStringLiteral("flaggedTable"), {tr("image"), tr("value"), tr("output"), tr("true")});
    m_flagged->setToolTip(tr("Images on the inadequate side of the threshold, least adequate first; click one to "
                             "open it with the same runs"));
    const QString views = tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)");
    m_export = makeExportButton(
        this, {{tr("Export the risk-coverage chart"), QStringLiteral("risk-coverage.png"), views,
                [this](const QString& path) { return exportCurves(path); }},
               {tr("Export the flagged images"), QStringLiteral("flagged-images.csv"), tr("CSV (*.csv);;PNG (*.png)"),
                [this](const QString& path) { return exportFlagged(path); }},
               {tr("Export the measurement"), QStringLiteral("adequacy.json"), tr("JSON (*.json)"),
                [this](const QString& path) { return exportJson(path); }}});
}

void AdequacyPanel::buildLayout() {
    // Narrow rows: the left column shares 1,280 pixels with the canvas and the step panel, and
    // spin boxes may shrink below their preferred width.
    for (QAbstractSpinBox* spin : {static_cast<QAbstractSpinBox*>(m_limit), static_cast<QAbstractSpinBox*>(m_runs),
                                   static_cast<QAbstractSpinBox*>(m_target)})
        spin->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    auto* top = new QHBoxLayout;
    top->addWidget(m_dataset, 1);
    top->addWidget(runButton());
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_limit, 1);
    buttons->addWidget(m_runs, 1);
    buttons->addWidget(m_export);
    auto* progress = new QHBoxLayout;
    progress->addWidget(progressBar(), 1);
    progress->addWidget(cancelButton());
    auto* chooser = new QHBoxLayout;
    chooser->addWidget(m_signal, 1);
    chooser->addWidget(m_target, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addLayout(buttons);
    layout->addLayout(progress);
    layout->addWidget(m_summary);
    layout->addWidget(m_chart, 3);
    layout->addWidget(m_signals);
    layout->addLayout(chooser);
    layout->addWidget(m_threshold);
    layout->addWidget(m_flagged, 3);
}

void AdequacyPanel::connectSignals() {
    connect(m_signal, &QComboBox::currentIndexChanged, this, [this] { updateThreshold(); });
    connect(m_target, &QDoubleSpinBox::valueChanged, this, [this] { updateThreshold(); });
    connect(m_signals, &QTableWidget::cellClicked, this, [this](int row, int) {
        const auto* item = m_signals->item(row, 0);
        if (item && item->data(Qt::UserRole).toInt() >= 0) setSignal(AdequacySignal(item->data(Qt::UserRole).toInt()));
    });
    connect(m_flagged, &QTableWidget::cellClicked, this, [this](int row, int) {
        const auto* item = m_flagged->item(row, 0);
        if (item && m_report)
            Q_EMIT imageChosen(m_measuredDataset, item->data(Qt::UserRole).toLongLong(), m_report->runs, m_report->seed);
    });
}

void AdequacyPanel::run() {
    if (m_dataset->currentText().isEmpty())
        return showError(tr("No built-in dataset has this model's input size: the signals need a labelled test split."));
    AdequacyOptions options;
    options.limit = m_limit->value();
    options.runs = m_runs->value();
    options.targets = {0.95, 0.99};
    showRequested(tr("Measuring %1 images of %2, %3 sampled runs each…")
                      .arg(options.limit).arg(m_dataset->currentText()).arg(options.runs));
    Q_EMIT measureRequested(m_dataset->currentText(), options);
}

void AdequacyPanel::setModel(const QStringList& classNames, const QStringList& datasets, const QString& preferred) {
    m_classNames = classNames;
    m_dataset->clear();
    m_dataset->addItems(datasets);
    const int i = m_dataset->findText(preferred);
    m_dataset->setCurrentIndex(i >= 0 ? i : 0);
    clear(datasets.isEmpty() ? tr("No built-in dataset has this model's input size: the signals need a labelled test split.")
                             : tr("Measure the adequacy signals of this model on a test split."));
    m_autoMeasure = true;
    if (isVisible()) maybeMeasure();
}

void AdequacyPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    maybeMeasure();
}

void AdequacyPanel::maybeMeasure() {
    if (!m_autoMeasure || isRunning() || m_report || m_dataset->currentText().isEmpty()) return;
    m_autoMeasure = false;
    runButton()->click();
}

void AdequacyPanel::setLimit(int images) { m_limit->setValue(images); }
void AdequacyPanel::setRuns(int runs) { m_runs->setValue(runs); }
void AdequacyPanel::setSignal(AdequacySignal signal) { m_signal->setCurrentIndex(m_signal->findData(int(signal))); }
void AdequacyPanel::setTargetAccuracy(double fraction) { m_target->setValue(100 * fraction); }
AdequacySignal AdequacyPanel::signal() const { return AdequacySignal(m_signal->currentData().toInt()); }
double AdequacyPanel::targetAccuracy() const { return m_target->value() / 100; }
QString AdequacyPanel::thresholdText() const { return m_threshold->text(); }

std::optional<double> AdequacyPanel::threshold() const {
    if (!m_report) return std::nullopt;
    const auto& curve = m_report->curves[size_t(signal())];
    if (!curve.available) return std::nullopt;
    return coverageAt(curve, targetAccuracy()).threshold;
}

bool AdequacyPanel::targetUnreachable() const {
    return m_report && m_report->curves[size_t(signal())].available && !threshold();
}

std::optional<double> AdequacyPanel::valueOf(const QString& dataset, qint64 index) const {
    if (!m_report || dataset != m_measuredDataset || index < 0 || index >= qint64(m_report->images.size()))
        return std::nullopt;
    const double v = m_report->images[size_t(index)].signals[signal()];
    return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

void AdequacyPanel::clear(const QString& message) {
    m_report.reset();
    m_measuredDataset.clear();
    showIdle();
    m_summary->setText(message);
    m_chart->clear();
    m_signals->setRowCount(0);
    m_flagged->setRowCount(0);
    m_threshold->clear();
    m_export->setEnabled(false);
    Q_EMIT thresholdChanged();
}

QString AdequacyPanel::className(int label) const {
    return label >= 0 && label < m_classNames.size() ? m_classNames[label] : QString::number(label);
}

void AdequacyPanel::showReport(const AdequacyReport& r, const QString& dataset) {
    m_report = r;
    m_measuredDataset = dataset;
    showArrived();
    m_export->setEnabled(true);
    const QString det = QString::fromStdString(r.deploymentRule);
    const QString rule = r.deploymentDiffers()
                             ? tr("<span style='color:#a05a00'>differs from the training rule (%1)</span>")
                                   .arg(QString::fromStdString(r.trainingRule))
                             : tr("the training rule");
    // A model without sampled runs: its deterministic traces and shifted copies alone.
    const QString measured =
        r.runs > 0 ? tr("%1 sampled runs (seeds %2..%3 on every image)").arg(r.runs).arg(r.seed).arg(r.seed + quint64(r.runs) - 1)
                   : tr("no sampled runs (the model has none)");
    const QString shifts = r.shifts > 0 ? tr(", %1 shifted copies up to %2 px (seed %3)").arg(r.shifts).arg(r.maxShift).arg(r.seed)
                                        : QString();
    m_summary->setText(tr("<b>%1</b> test split, %2 images × %3%4, %5 s.<br>"
                          "Deployment rule <b>%6</b> (%7): accuracy <b>%8%</b> at full coverage. Best signal: <b>%9</b>; "
                          "oracle AURC %10, random %11.")
                           .arg(dataset).arg(r.images.size()).arg(measured, shifts)
                           .arg(r.seconds, 0, 'f', 1).arg(det, rule).arg(100 * r.accuracy, 0, 'f', 1)
                           .arg(QString::fromStdString(r.bestSignal.empty() ? "none" : r.bestSignal))
                           .arg(r.oracleAurc, 0, 'f', 4).arg(r.randomAurc, 0, 'f', 4));

    QVector<SeriesChart::Series> series;
    for (const auto& c : r.curves) {
        if (!c.available) continue;
        SeriesChart::Series s;
        s.name = QStringLiteral("%1 (%2)").arg(QString::fromLatin1(signalInfo(c.signal).key)).arg(c.aurc, 0, 'f', 3);
        s.colour = kSignalColours[int(c.signal)];
        s.dots = false;
        s.legend = false;
        for (const auto& p : c.points) s.points << QPointF(100 * p.coverage, 100 * p.risk);
        series << s;
    }
    // The oracle: every error ranked last.
    SeriesChart::Series oracle;
    oracle.name = tr("oracle (%1)").arg(r.oracleAurc, 0, 'f', 3);
    oracle.dashed = true;
    oracle.dots = false;
    oracle.legend = false;
    oracle.colour = Qt::black;
    const double n = double(r.images.size()), right = std::round(r.accuracy * n);
    oracle.points << QPointF(100 * right / n, 0);
    for (int k = int(right) + 1; k <= int(n); ++k) oracle.points << QPointF(100 * k / n, 100 * (k - right) / k);
    series << oracle;
    m_chart->setTitles(tr("Risk of %1 against coverage").arg(det), tr("coverage (%)"), tr("risk (%)"));
    m_chart->setSeries(series);

    m_signals->setRowCount(0);
    for (const auto& c : r.curves) {
        const int row = m_signals->rowCount();
        m_signals->insertRow(row);
        auto* name = new QTableWidgetItem(QString::fromLatin1(signalInfo(c.signal).key));
        name->setData(Qt::UserRole, int(c.signal));
        name->setForeground(kSignalColours[int(c.signal)]);
        name->setToolTip(QString::fromLatin1(signalInfo(c.signal).label));
        m_signals->setItem(row, 0, name);
        m_signals->setItem(row, 1, new QTableWidgetItem(c.available ? QString::number(c.aurc, 'f', 4) : tr("not measured")));
        m_signals->setRowHidden(row, !c.available);
    }
    // The references, as rows of the same table (it is the chart's legend).
    for (const auto& [name, aurc, tip] :
         {std::tuple{tr("oracle (dashed)"), r.oracleAurc, tr("Every error ranked last: the best any signal can do")},
          std::tuple{tr("random"), r.randomAurc, tr("A signal that knows nothing: the error rate at every coverage")}}) {
        const int row = m_signals->rowCount();
        m_signals->insertRow(row);
        auto* item = new QTableWidgetItem(name);
        item->setData(Qt::UserRole, -1);
        item->setToolTip(tip);
        m_signals->setItem(row, 0, item);
        m_signals->setItem(row, 1, new QTableWidgetItem(QString::number(aurc, 'f', 4)));
    }
    if (!r.bestSignal.empty()) setSignal(*parseAdequacySignal(r.bestSignal));
    updateThreshold();
}

void AdequacyPanel::updateThreshold() {
    m_flagged->setRowCount(0);
    if (!m_report) return;
    const auto& r = *m_report;
    const double target = targetAccuracy();
    for (int row = 0; row < m_signals->rowCount(); ++row) {
        const int id = m_signals->item(row, 0)->data(Qt::UserRole).toInt();
        if (id < 0) continue;  // the oracle and random rows
        const auto& c = r.curves[size_t(id)];
        const auto at = c.available ? coverageAt(c, target) : CoverageAtTarget{};
        m_signals->setItem(row, 2, new QTableWidgetItem(c.available ? QStringLiteral("%1%").arg(100 * at.coverage, 0, 'f', 1)
                                                                    : tr("n/a")));
        m_signals->setItem(row, 3, new QTableWidgetItem(at.threshold ? comparison(c.signal) + QStringLiteral(" ") +
                                                                           valueText(c.signal, *at.threshold)
                                                                     : tr("none")));
    }
    m_signals->setHorizontalHeaderItem(2, new QTableWidgetItem(tr("@ %1%").arg(100 * target, 0, 'f', 1)));

    const auto s = signal();
    const auto& curve = r.curves[size_t(s)];
    const QString key = QString::fromLatin1(signalInfo(s).key);
    const auto at = curve.available ? coverageAt(curve, target) : CoverageAtTarget{};
    std::vector<size_t> flagged;
    for (size_t i = 0; i < r.images.size(); ++i)
        if (curve.available && (!at.threshold || isInadequate(s, r.images[i].signals[s], *at.threshold)))
            flagged.push_back(i);
    std::stable_sort(flagged.begin(), flagged.end(), [&](size_t a, size_t b) {
        const double va = r.images[a].signals[s], vb = r.images[b].signals[s];
        return signalInfo(s).higherIsAdequate ? va < vb : va > vb;
    });
    if (!curve.available)
        m_threshold->setText(tr("%1 is not defined for %2 models.").arg(key, QString::fromStdString(outputKindName(r.outputKind))));
    else if (!at.threshold)
        m_threshold->setText(tr("<span style='color:#a05a00'>No threshold on %1 reaches %2% accuracy: every image is "
                                "flagged.</span>").arg(key).arg(100 * target, 0, 'f', 1));
    else
        m_threshold->setText(tr("Keep images with %1 %2 %3: <b>%4%</b> coverage at %5% accuracy. <b>%6</b> images "
                                "flagged as inadequate observations (click one to open it).")
                                 .arg(key, comparison(s), valueText(s, *at.threshold))
                                 .arg(100 * at.coverage, 0, 'f', 1).arg(100 * at.accuracy, 0, 'f', 1).arg(flagged.size()));
    m_flagged->setHorizontalHeaderItem(1, new QTableWidgetItem(key));
    const int rows = int(std::min<size_t>(kMaxFlaggedRows, flagged.size()));
    m_flagged->setRowCount(rows);
    for (int row = 0; row < rows; ++row) {
        const auto& im = r.images[flagged[size_t(row)]];
        auto* id = new QTableWidgetItem(QString::number(im.index));
        id->setData(Qt::UserRole, qint64(im.index));
        m_flagged->setItem(row, 0, id);
        m_flagged->setItem(row, 1, new QTableWidgetItem(valueText(s, im.signals[s])));
        const bool caption = traitsOf(r.outputKind).referenceScored;
        auto* output = new QTableWidgetItem(caption ? QString::fromStdString(im.caption) : className(im.prediction));
        output->setForeground(im.correct ? QColor(30, 140, 60) : QColor(190, 40, 40));
        output->setToolTip(im.correct ? tr("right") : tr("wrong"));
        m_flagged->setItem(row, 2, output);
        m_flagged->setItem(row, 3, new QTableWidgetItem(caption ? (im.correct ? tr("valid") : tr("not valid"))
                                                                : className(im.truth)));
    }
    m_flagged->resizeColumnsToContents();
    Q_EMIT thresholdChanged();
}

QString AdequacyPanel::exportCurves(const QString& path) {
    if (!m_report) return tr("nothing to export: no measurement yet");
    return exportView(*m_chart, m_chart->csv(QStringLiteral("coverage_percent")), path, {},
                      {tr("Risk against coverage of the adequacy signals"), plainText(m_summary->text())});
}

QString AdequacyPanel::exportFlagged(const QString& path) const {
    if (!m_report) return tr("nothing to export: no measurement yet");
    return exportTable(*m_flagged, path);
}

QString AdequacyPanel::exportJson(const QString& path) const {
    if (!m_report) return tr("nothing to export: no measurement yet");
    return exportJsonFile(adequacyReportToJson(*m_report), path);
}

}  // namespace saccade::ui
