#include "ui/attention/compare_runs_panel.h"

#include <QEvent>

#include <QBoxLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "metrics/caption_metrics.h"
#include "ui/charts/band_chart.h"
#include "ui/charts/class_prob_chart.h"
#include "ui/view_export.h"

namespace saccade::ui {

namespace {

constexpr int kListedPaths = 50;

QString nameOf(const RunSet& set, int label) {
    return label >= 0 && label < int(set.classNames.size()) ? QString::fromStdString(set.classNames[size_t(label)])
                                                            : QString::number(label);
}

// The output in the rich-text summary: a caption or class name is escaped, so it shows as typed.
QString verdict(const RunSet& set, const Trace& t) {
    if (traitsOf(set.outputKind).referenceScored) {  // the caption, and whether it is a valid one
        QString text = QStringLiteral("\u201c%1\u201d").arg(QString::fromStdString(t.output.text).toHtmlEscaped());
        if (!set.references.empty())
            text += std::find(set.references.begin(), set.references.end(), t.output.text) != set.references.end()
                        ? QObject::tr(", valid")
                        : QObject::tr(", not valid");
        return text;
    }
    const int label = t.output.label;
    const double p = label >= 0 && label < int(t.output.probs.size()) ? t.output.probs[size_t(label)] : 0;
    QString text = QStringLiteral("%1 (p %2)").arg(nameOf(set, label).toHtmlEscaped()).arg(p, 0, 'f', 2);
    if (set.truth) text += label == *set.truth ? QObject::tr(", right") : QObject::tr(", wrong");
    return text;
}

// A path as the user reads it: grid cells as (row, col), RAM bins likewise.
QString pathText(const RunStats& stats, const PathCount& p) {
    QStringList steps;
    for (int cell : p.key)
        steps << (cell < 0 ? QStringLiteral("-")
                           : QStringLiteral("%1,%2").arg(cell / stats.visitCols).arg(cell % stats.visitCols));
    return steps.join(QStringLiteral(" → "));
}

}  // namespace

CompareRunsPanel::CompareRunsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("compareRunsPanel"));
    m_count = new QSpinBox(this);
    m_count->setObjectName(QStringLiteral("runCount"));
    m_count->setRange(1, 10000);
    m_count->setValue(100);
    m_count->setSuffix(tr(" runs"));
    m_count->setToolTip(tr("Sampled runs of this image: run i uses the toolbar's seed + i"));
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName(QStringLiteral("runButton"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(true);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("runsSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->installEventFilter(this);
    buildResultViews();
    buildLoadRow();
    buildLayout();
    connectSignals();
    clear(tr("Run N seeded samples of this image against the deterministic rule."));
}

// The output chart, the entropy chart, the path table and (captioners) the word table.
void CompareRunsPanel::buildResultViews() {
    m_outputs = new ClassProbChart(this);
    m_outputs->setMinimumHeight(150);  // with the charts below, fits presentation type at 1280x800
    m_entropy = new BandChart(this);
    m_entropy->setObjectName(QStringLiteral("entropyChart"));
    m_entropy->setMinimumHeight(130);
    // No chart title: in the left column at 1280x800 its line is what the ticks need.
    m_entropy->setTitles(QString(), tr("step"), tr("nats"));
    m_entropy->setToolTip(tr("Entropy of each step's attention over the runs: the line is the mean, the band \u00b11 sd"));
    m_outputs->setObjectName(QStringLiteral("outputChart"));
    m_outputs->setAxisTitles(tr("share of runs"), tr("output"));
    m_outputs->setToolTip(tr("Share of runs per output; click a bar to load the first run with that output"));
    m_paths = new QTableWidget(0, 3, this);
    m_paths->setObjectName(QStringLiteral("pathTable"));
    m_paths->setHorizontalHeaderLabels({tr("runs"), tr("right"), tr("path (row,col per step)")});
    m_paths->horizontalHeader()->setStretchLastSection(true);
    m_paths->resizeColumnToContents(0);  // narrow count columns, so the path header fits when empty
    m_paths->resizeColumnToContents(1);
    m_paths->verticalHeader()->setVisible(false);
    m_paths->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_paths->setSelectionMode(QAbstractItemView::SingleSelection);
    m_paths->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_paths->setToolTip(tr("Distinct paths, most common first; click one to load its first run"));
    // Captioners on a scene with known objects: per word, how often the sampled cell hit the
    // object the word names, and whether the deterministic caption's cell did.
    m_words = new QTableWidget(0, 4, this);
    m_words->setObjectName(QStringLiteral("wordHitTable"));
    m_words->setHorizontalHeaderLabels({tr("word"), tr("hit rate"), tr("uses"), QString()});
    m_words->horizontalHeader()->setStretchLastSection(true);
    m_words->verticalHeader()->setVisible(false);
    m_words->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_words->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_words->setSelectionMode(QAbstractItemView::NoSelection);
    m_words->setToolTip(tr("Per word of the sampled captions: the share of its uses whose sampled cell lay on the "
                           "object it names (a relation word: on either object it relates), and whether the "
                           "deterministic caption's cell did"));
    m_words->setVisible(false);
    for (QWidget* w : {static_cast<QWidget*>(m_outputs), static_cast<QWidget*>(m_entropy), static_cast<QWidget*>(m_paths),
                       static_cast<QWidget*>(m_words)})
        w->setMinimumWidth(120);  // the panel shares the left column; it must not widen the window
}

// Loading run i, and the exports.
void CompareRunsPanel::buildLoadRow() {
    m_runIndex = new QSpinBox(this);
    m_runIndex->setPrefix(tr("run #"));
    m_loadRun = new QPushButton(tr("Load"), this);
    m_loadRun->setToolTip(tr("Show this run's trace on the canvas"));
    const QString views = tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)");
    m_export = makeExportButton(
        this, {{tr("Export the output chart"), QStringLiteral("runs-outputs.png"), views,
                [this](const QString& path) { return exportOutputs(path); }},
               {tr("Export the entropy chart"), QStringLiteral("runs-entropy.png"), views,
                [this](const QString& path) { return exportEntropy(path); }},
               {tr("Export the path table"), QStringLiteral("runs-paths.csv"), tr("CSV (*.csv);;PNG (*.png);;SVG (*.svg)"),
                [this](const QString& path) { return exportPaths(path); }},
               {tr("Export the word hit rates"), QStringLiteral("runs-words.csv"), tr("CSV (*.csv);;PNG (*.png);;SVG (*.svg)"),
                [this](const QString& path) { return exportWords(path); }},
               {tr("Export the run set"), QStringLiteral("runs.json"), tr("JSON (*.json)"),
                [this](const QString& path) { return exportRunSet(path); }}});
    m_export->setToolTip(tr("Charts and tables as PNG, SVG or CSV; the run set as JSON (saccade.runset)"));
}

void CompareRunsPanel::buildLayout() {
    auto* top = new QHBoxLayout;
    top->addWidget(m_count, 1);
    top->addWidget(m_run);
    auto* progress = new QHBoxLayout;
    progress->addWidget(m_progress, 1);
    progress->addWidget(m_cancel);
    auto* load = new QHBoxLayout;
    load->addWidget(m_runIndex, 1);
    load->addWidget(m_loadRun);
    load->addWidget(m_export);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addLayout(progress);
    layout->addWidget(m_summary);
    layout->addWidget(m_outputs, 2);
    layout->addWidget(m_entropy, 2);
    layout->addWidget(m_paths, 3);
    layout->addWidget(m_words, 2);
    layout->addLayout(load);
}

void CompareRunsPanel::connectSignals() {
    connect(m_run, &QPushButton::clicked, this, &CompareRunsPanel::startRuns);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        setRunning(false);
        m_progress->setValue(0);
        m_summary->setText(tr("Cancelled."));
        fitSummary();
        Q_EMIT cancelRequested();
    });
    connect(m_paths, &QTableWidget::cellClicked, this, [this](int row, int) {
        const auto* item = m_paths->item(row, 0);
        if (item) Q_EMIT runChosen(item->data(Qt::UserRole).toULongLong());
    });
    connect(m_outputs, &ClassProbChart::classClicked, this, [this](int label) {
        const auto run = std::find_if(m_set.runs.begin(), m_set.runs.end(),
                                      [label](const RunRecord& r) { return r.label == label; });
        if (run != m_set.runs.end()) Q_EMIT runChosen(run->seed);
    });
    connect(m_loadRun, &QPushButton::clicked, this, [this] {
        const int i = m_runIndex->value();
        if (i >= 0 && i < int(m_set.runs.size())) Q_EMIT runChosen(m_set.runs[size_t(i)].seed);
    });
}

int CompareRunsPanel::runs() const { return m_count->value(); }
void CompareRunsPanel::setRuns(int runs) { m_count->setValue(runs); }

void CompareRunsPanel::startRuns() {
    setRunning(true);
    m_progress->setRange(0, m_count->value());
    m_progress->setValue(0);
    Q_EMIT runRequested(m_count->value());
}

void CompareRunsPanel::setRunning(bool running) {
    m_running = running;
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_count->setEnabled(!running);
}

void CompareRunsPanel::setProgress(int done, int total) {
    m_progress->setRange(0, total);
    m_progress->setValue(done);
}

void CompareRunsPanel::clear(const QString& message) {
    m_set = RunSet{};
    m_stats = RunStats{};
    m_export->setEnabled(false);
    setRunning(false);
    m_progress->setValue(0);
    m_summary->setText(message);
    fitSummary();
    m_outputs->clear();
    m_entropy->clear();
    m_paths->setRowCount(0);
    m_words->setRowCount(0);
    m_words->setVisible(false);
    m_runIndex->setRange(0, 0);
    m_loadRun->setEnabled(false);
}

void CompareRunsPanel::showError(const QString& message) {
    setRunning(false);
    m_summary->setText(tr("<span style='color:#c33'>%1</span>").arg(message.toHtmlEscaped()));
    fitSummary();
}

void CompareRunsPanel::showResult(const RunSet& set, const RunStats& stats, int total) {
    m_set = set;
    m_stats = stats;
    const bool more = total > stats.runs;
    setRunning(more);
    m_export->setEnabled(!more);
    m_progress->setRange(0, std::max(total, stats.runs));
    m_progress->setValue(stats.runs);
    showSummary(set, stats, total);
    const QString det = QString::fromStdString(set.deterministicRule);
    QVector<double> shares;
    QStringList names;
    for (size_t k = 0; k < stats.labelCounts.size(); ++k) {
        shares << double(stats.labelCounts[k]) / std::max(1, stats.runs);
        names << nameOf(set, int(k));
    }
    const int seen = int(std::count_if(stats.labelCounts.begin(), stats.labelCounts.end(), [](int n) { return n > 0; }));
    m_outputs->setProbabilities(shares, names, set.truth ? *set.truth : -1, std::clamp(seen, 1, 5),
                                stats.deterministicLabel, det);
    m_entropy->setSeries(QVector<double>(stats.entropyMean.begin(), stats.entropyMean.end()),
                         QVector<double>(stats.entropyStd.begin(), stats.entropyStd.end()));

    showPaths(set, stats);
    showWords(set, stats);
    m_runIndex->setRange(0, std::max(0, stats.runs - 1));
    m_loadRun->setEnabled(stats.runs > 0);
}

// The runs so far, each rule's output, the agreement and the accuracy.
void CompareRunsPanel::showSummary(const RunSet& set, const RunStats& stats, int total) {
    const bool more = total > stats.runs;
    const QString det = QString::fromStdString(set.deterministicRule);
    QString text = more ? tr("<b>%1 of %2 runs so far</b>, seeds from %3<br>").arg(stats.runs).arg(total).arg(set.seed)
                        : tr("<b>%1 runs</b>, seeds %2–%3, %4 ms<br>").arg(stats.runs).arg(set.seed)
                              .arg(set.seed + quint64(stats.runs) - 1).arg(set.seconds * 1000, 0, 'f', 0);
    text += tr("%1: %2<br>").arg(det, verdict(set, set.deterministic));
    if (set.soft) text += tr("soft: %1<br>").arg(verdict(set, *set.soft));
    if (set.ksample) text += tr("%1: %2<br>").arg(QString::fromStdString(set.ksample->rule), verdict(set, *set.ksample));
    text += tr("runs agreeing with %1: <b>%2%</b>").arg(det).arg(100 * stats.agreement, 0, 'f', 1);
    if (stats.accuracy) text += tr("; right: <b>%1%</b>").arg(100 * *stats.accuracy, 0, 'f', 1);
    const bool caption = traitsOf(set.outputKind).referenceScored;
    // What the bars mean is in the chart's tool tip: the summary stays short enough for the charts
    // below it to keep their ticks in presentation type.
    text += caption ? tr("<br>%1 distinct paths, %2 distinct captions; right: the caption is a valid one.")
                          .arg(stats.paths.size())
                          .arg(std::count_if(stats.labelCounts.begin(), stats.labelCounts.end(), [](int n) { return n > 0; }))
                    : tr("<br>%1 distinct paths.").arg(stats.paths.size());
    m_outputs->setToolTip(caption ? tr("Share of runs per caption (the deterministic rule's caption is named in "
                                       "brackets, or in bold where the chart is short); click a bar to load the first run with that caption")
                                  : tr("Share of runs per output (green: the true class; the deterministic rule's "
                                       "output is named in brackets, or in bold where the chart is short); click a bar to load the first run with that output"));
    if (set.trainedMode == TrainingMode::Soft)
        text += tr("<br><i>Trained with soft attention: sampling is not its training rule.</i>");
    m_summary->setText(text);
    fitSummary();
}

// The distinct paths, most common first, each with its first run's seed.
void CompareRunsPanel::showPaths(const RunSet& set, const RunStats& stats) {
    const bool caption = traitsOf(set.outputKind).referenceScored;
    const int rows = std::min<int>(kListedPaths, int(stats.paths.size()));
    m_paths->setRowCount(rows);
    for (int r = 0; r < rows; ++r) {
        const auto& p = stats.paths[size_t(r)];
        auto* count = new QTableWidgetItem(QString::number(p.count));
        count->setData(Qt::UserRole, quint64(set.runs[size_t(p.firstRun)].seed));
        m_paths->setItem(r, 0, count);
        const bool judged = set.truth || (caption && !set.references.empty());
        m_paths->setItem(r, 1, new QTableWidgetItem(judged ? QStringLiteral("%1%").arg(100.0 * p.correct / p.count, 0, 'f', 0)
                                                           : QStringLiteral("?")));
        auto* path = new QTableWidgetItem(pathText(stats, p));
        path->setToolTip(tr("first taken by run %1 (seed %2)").arg(p.firstRun).arg(set.runs[size_t(p.firstRun)].seed));
        m_paths->setItem(r, 2, path);
    }
    m_paths->resizeColumnToContents(0);
    m_paths->resizeColumnToContents(1);
}

// Captioners: per word, how often its sampled cell hit the object it names.
void CompareRunsPanel::showWords(const RunSet& set, const RunStats& stats) {
    const QString det = QString::fromStdString(set.deterministicRule);
    m_words->setVisible(!stats.wordHits.empty());
    // A captioner's paths are nearly all distinct: its words get the room.
    if (auto* box = qobject_cast<QBoxLayout*>(layout())) box->setStretchFactor(m_paths, stats.wordHits.empty() ? 3 : 1);
    m_words->setHorizontalHeaderItem(3, new QTableWidgetItem(det));
    m_words->setRowCount(int(stats.wordHits.size()));
    const QStringList detWords = QString::fromStdString(set.deterministic.output.text).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (int r = 0; r < int(stats.wordHits.size()); ++r) {
        const auto& w = stats.wordHits[size_t(r)];
        auto* word = new QTableWidgetItem(QString::fromStdString(w.word));
        word->setToolTip(tr("a %1 word, in %2 of %3 runs").arg(QString::fromStdString(wordClassName(sceneWordClass(w.word))))
                             .arg(w.runs).arg(stats.runs));
        m_words->setItem(r, 0, word);
        m_words->setItem(r, 1, new QTableWidgetItem(w.uses ? QStringLiteral("%1%").arg(100 * w.rate(), 0, 'f', 1)
                                                           : QStringLiteral("–")));
        m_words->setItem(r, 2, new QTableWidgetItem(QString::number(w.uses)));
        // A word the deterministic caption has but that names no object is used, though not scored.
        const bool detUses = detWords.contains(QString::fromStdString(w.word));
        auto* detHit = new QTableWidgetItem(w.deterministic >= 0 ? (w.deterministic ? tr("hit") : tr("miss"))
                                            : detUses            ? tr("used, not scored")
                                                                 : tr("not used"));
        if (w.deterministic >= 0) detHit->setForeground(w.deterministic ? QColor(30, 140, 60) : QColor(200, 50, 50));
        m_words->setItem(r, 3, detHit);
    }
    m_words->resizeColumnsToContents();
}

void CompareRunsPanel::fitSummary() {
    const int need = m_summary->heightForWidth(m_summary->width());
    if (need > 0 && need != m_summary->minimumHeight()) m_summary->setMinimumHeight(need);
}

bool CompareRunsPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_summary && event->type() == QEvent::Resize) fitSummary();
    return QWidget::eventFilter(watched, event);
}

QString CompareRunsPanel::summaryText() const { return m_summary->text(); }

QString CompareRunsPanel::outputsCsv() const {
    QString csv = QStringLiteral("class,name,runs,share,true_class,%1_output\n").arg(QString::fromStdString(m_set.deterministicRule));
    for (size_t k = 0; k < m_stats.labelCounts.size(); ++k)
        csv += QStringLiteral("%1,%2,%3,%4,%5,%6\n").arg(k).arg(nameOf(m_set, int(k))).arg(m_stats.labelCounts[k])
                   .arg(double(m_stats.labelCounts[k]) / std::max(1, m_stats.runs), 0, 'g', 6)
                   .arg(m_set.truth && *m_set.truth == int(k) ? 1 : 0).arg(m_stats.deterministicLabel == int(k) ? 1 : 0);
    return csv;
}

QString CompareRunsPanel::pathsCsv() const {
    QString csv = QStringLiteral("runs,right,first_run,first_seed,path\n");
    for (const auto& p : m_stats.paths) {
        QStringList cells;
        for (int cell : p.key) cells << QString::number(cell);
        csv += QStringLiteral("%1,%2,%3,%4,%5\n").arg(p.count).arg(m_set.truth ? QString::number(p.correct) : QString())
                   .arg(p.firstRun).arg(m_set.runs[size_t(p.firstRun)].seed).arg(cells.join(QLatin1Char(' ')));
    }
    return csv;
}

QString CompareRunsPanel::exportOutputs(const QString& path) {
    if (m_set.runs.empty()) return tr("nothing to export: no runs yet");
    return exportView(*m_outputs, outputsCsv(), path, {},
                      {tr("Outputs of %1 sampled runs").arg(m_stats.runs), plainText(m_summary->text())});
}

QString CompareRunsPanel::exportEntropy(const QString& path) {
    if (m_set.runs.empty()) return tr("nothing to export: no runs yet");
    return exportView(*m_entropy, m_entropy->csv(QStringLiteral("step"), QStringLiteral("mean_entropy"),
                                                 QStringLiteral("mean_minus_sd"), QStringLiteral("mean_plus_sd")),
                      path, {}, {tr("Attention entropy per step over %1 sampled runs").arg(m_stats.runs), plainText(m_summary->text())});
}

QString CompareRunsPanel::exportPaths(const QString& path) {
    if (m_set.runs.empty()) return tr("nothing to export: no runs yet");
    // CSV lists every path; the drawn table shows the listed ones.
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) return writeFileAtomically(path, pathsCsv().toUtf8());
    return exportTable(*m_paths, path);
}

QString CompareRunsPanel::wordsCsv() const {
    QString csv = QStringLiteral("word,class,uses,hits,hit_rate,runs,%1_hit\n").arg(QString::fromStdString(m_set.deterministicRule));
    for (const auto& w : m_stats.wordHits)
        csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7\n").arg(QString::fromStdString(w.word))
                   .arg(QString::fromStdString(wordClassName(sceneWordClass(w.word)))).arg(w.uses).arg(w.hits)
                   .arg(w.uses ? QString::number(w.rate(), 'g', 6) : QString()).arg(w.runs).arg(w.deterministic < 0 ? QString() : QString::number(w.deterministic));
    return csv;
}

QString CompareRunsPanel::exportWords(const QString& path) {
    if (m_stats.wordHits.empty()) return tr("nothing to export: no word hit rates (a captioner's runs on a scene with known objects have them)");
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) return writeFileAtomically(path, wordsCsv().toUtf8());
    return exportTable(*m_words, path);
}

QString CompareRunsPanel::exportRunSet(const QString& path) const {
    if (m_set.runs.empty()) return tr("nothing to export: no runs yet");
    return exportJsonFile(runSetToJson(m_set, m_stats), path);
}

}  // namespace saccade::ui
