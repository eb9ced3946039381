#include "ui/attention/dataset_compare_panel.h"
#include "ui/number_format.h"

#include <QComboBox>
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
#include <cmath>
#include <optional>

#include "ui/charts/band_chart.h"
#include "ui/image_folder_entry.h"
#include "ui/browser_table.h"
#include "ui/view_export.h"

namespace saccade::ui {

namespace {

constexpr int kListedImages = 2000;  // the disagreement browser's rows; the CSV and JSON have all


}  // namespace

DatasetComparePanel::DatasetComparePanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("datasetComparePanel"));
    m_dataset = new QComboBox(this);
    m_dataset->setToolTip(tr("The test split to compare the rules on"));
    m_limit = new QSpinBox(this);
    m_limit->setObjectName(QStringLiteral("imageLimit"));
    m_limit->setRange(10, 10000);
    m_limit->setSingleStep(500);
    m_limit->setValue(1000);
    m_limit->setSuffix(tr(" images"));
    m_limit->setToolTip(tr("The first N test images (10,000: the whole Fashion-MNIST test split)"));
    buildJobControls(tr("Compare"), QStringLiteral("compareButton"));
    setJobInputs({m_dataset, m_limit});
    m_summary = statusLabel();
    m_summary->setObjectName(QStringLiteral("comparisonSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buildResultViews();
    buildLayout();
    // The last entry opens a folder of the user's images.
    m_folderEntry = new ImageFolderEntry(m_dataset, tr("Compare the rules on your own images: a folder with one "
                                                       "subfolder per class (FOLDER/CLASS_NAME/IMAGE.png), square "
                                                       "images of the model's size"));
    connectSignals();
    clear(tr("Compare every rule of the model on a test split: accuracy, accuracy against K, "
             "and the images where sample and the deterministic rule disagree."));
}

// The accuracy table, the accuracy-against-K chart, the disagreeing images and the exports.
void DatasetComparePanel::buildResultViews() {
    m_accuracy = makeBrowserTable(this, QStringLiteral("accuracyTable"),
                           {tr("rule"), tr("accuracy"), tr("95% CI"), tr("training\nrule?")});
    m_kChart = new BandChart(this);
    m_kChart->setObjectName(QStringLiteral("kChart"));
    m_kChart->setTitles(tr("Accuracy against K (ksample:K), 95% interval"), tr("K"), {});
    m_kChart->setMinimumWidth(120);
    m_disagreeNote = new QLabel(this);
    m_disagreeNote->setWordWrap(true);
    m_disagree = makeBrowserTable(this, QStringLiteral("disagreementTable"), {tr("image"), tr("true"), {}, tr("sample")});
    m_disagree->setToolTip(tr("Images on which sample and the deterministic rule disagree; click one to open it"));
    const QString views = tr("PNG (*.png);;SVG (*.svg);;CSV (*.csv)");
    const QString tables = tr("CSV (*.csv);;PNG (*.png);;SVG (*.svg)");
    m_export = makeExportButton(
        this, {{tr("Export the accuracy table"), QStringLiteral("rules-accuracy.csv"), tables,
                [this](const QString& path) { return exportAccuracy(path); }},
               {tr("Export the accuracy-against-K chart"), QStringLiteral("accuracy-vs-k.png"), views,
                [this](const QString& path) { return exportKCurve(path); }},
               {tr("Export the disagreeing images"), QStringLiteral("disagreements.csv"), tables,
                [this](const QString& path) { return exportDisagreements(path); }},
               {tr("Export the comparison"), QStringLiteral("comparison.json"), tr("JSON (*.json)"),
                [this](const QString& path) { return exportJson(path); }}});
}

void DatasetComparePanel::buildLayout() {
    auto* top = new QHBoxLayout;
    top->addWidget(m_dataset, 2);
    top->addWidget(m_limit, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton());
    buttons->addWidget(m_export);
    buttons->addStretch();
    auto* progress = new QHBoxLayout;
    progress->addWidget(progressBar(), 1);
    progress->addWidget(cancelButton());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addLayout(buttons);
    layout->addLayout(progress);
    layout->addWidget(m_summary);
    layout->addWidget(m_accuracy, 3);
    layout->addWidget(m_kChart, 3);
    layout->addWidget(m_disagreeNote);
    layout->addWidget(m_disagree, 2);
}

void DatasetComparePanel::connectSignals() {
    connect(m_folderEntry, &ImageFolderEntry::failed, this, &DatasetComparePanel::showError);
    connect(m_disagree, &QTableWidget::cellClicked, this, [this](int row, int) {
        const auto* item = m_disagree->item(row, 0);
        if (!item || m_comparedDataset.isEmpty() || !m_comparison) return;
        const qint64 index = item->data(Qt::UserRole).toLongLong();
        Q_EMIT imageChosen(m_comparedDataset, index, evaluationSeed(m_comparison->seed, index));
    });
}

void DatasetComparePanel::run() {
    if (dataset().isEmpty())
        return showError(m_dataset->count() > 1 ? tr("Pick a test split, or an image folder of your own.")
                                                : tr("No built-in dataset has this model's input size: pick "
                                                     "\"Image folder…\" for a folder of your own images."));
    showRequested(tr("Evaluating every rule on %1 images of %2…").arg(m_limit->value()).arg(dataset()));
    Q_EMIT compareRequested(dataset(), m_limit->value());
}

void DatasetComparePanel::setModel(const QStringList& classNames, const QStringList& datasets,
                                   const QString& preferred, const QString& deterministicRule) {
    m_classNames = classNames;
    m_disagree->setHorizontalHeaderItem(2, new QTableWidgetItem(deterministicRule));
    m_disagree->resizeColumnsToContents();
    m_dataset->clear();
    for (const QString& d : datasets) m_dataset->addItem(d, d);
    const int i = m_dataset->findData(preferred);
    m_dataset->setCurrentIndex(i >= 0 ? i : 0);
    m_folderEntry->append();
    clear(datasets.isEmpty() ? tr("No built-in dataset has this model's input size: compare the rules on a folder "
                                  "of your own images (\"Image folder…\" in the list).")
                             : tr("Compare every rule of this model on a test split."));
}

QString DatasetComparePanel::addImageFolder(const QString& folder) { return m_folderEntry->addFolder(folder); }

QString DatasetComparePanel::dataset() const {
    return m_folderEntry->isEntry(m_dataset->currentIndex()) ? QString() : m_dataset->currentData().toString();
}
qint64 DatasetComparePanel::limit() const { return m_limit->value(); }
void DatasetComparePanel::setLimit(qint64 images) { m_limit->setValue(int(images)); }

void DatasetComparePanel::clear(const QString& message) {
    m_comparison.reset();
    m_rules.reset();
    m_comparedDataset.clear();
    showIdle();
    m_summary->setText(message);
    m_accuracy->setRowCount(0);
    m_kChart->clear();
    m_disagreeNote->clear();
    m_disagree->setRowCount(0);
    m_export->setEnabled(false);
}

QString DatasetComparePanel::className(int label) const {
    return label >= 0 && label < m_classNames.size() ? m_classNames[label] : QString::number(label);
}

// The tables' columns: a sampled comparison's, or (a model without sampled runs) its rules'.
void DatasetComparePanel::setSampledHeaders(bool sampled) {
    // Two-line titles: the table fits the side panel at 1280x800 without scrolling sideways.
    const QStringList accuracy = sampled ? QStringList{tr("rule"), tr("accuracy"), tr("95% CI"), tr("training\nrule?")}
                                         : QStringList{tr("rule"), tr("accuracy"), tr("95% CI"), tr("mass\nin box"),
                                                       tr("pointing\ngame")};
    m_accuracy->setColumnCount(int(accuracy.size()));
    m_accuracy->setHorizontalHeaderLabels(accuracy);
    const QStringList second = sampled ? QStringList{tr("image"), tr("true"), {}, tr("sample")}
                                       : QStringList{tr("rules"), tr("same most attended cell"), tr("images")};
    m_disagree->setColumnCount(int(second.size()));
    m_disagree->setHorizontalHeaderLabels(second);
    m_accuracy->resizeColumnsToContents();
    m_disagree->resizeColumnsToContents();
    m_kChart->setVisible(sampled);
}

void DatasetComparePanel::showRuleComparison(const RuleComparison& c, const QString& dataset) {
    m_comparison.reset();
    m_rules = c;
    m_comparedDataset = dataset;
    showArrived();
    m_export->setEnabled(true);
    setSampledHeaders(false);
    m_summary->setText(tr("<b>%1</b> test split, %2 images (%3 with a box), %4 s.<br>This model has no sampled runs: "
                          "its rules are compared on the last step's map (a transformer's last layer), the most "
                          "attended cell read on a %5x%6 grid.")
                           .arg(dataset).arg(c.images).arg(c.boxed).arg(c.seconds, 0, 'f', 1).arg(c.rows).arg(c.cols));
    const auto measured = [this](const std::optional<double>& v) { return v ? formatPercent(*v, 2) : tr("not measured"); };
    m_accuracy->setRowCount(int(c.rules.size()));
    for (int i = 0; i < int(c.rules.size()); ++i) {
        const auto& r = c.rules[size_t(i)];
        m_accuracy->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(r.rule)));
        m_accuracy->setItem(i, 1, new QTableWidgetItem(formatPercent(r.accuracy.accuracy, 2)));
        m_accuracy->setItem(i, 2, new QTableWidgetItem(QStringLiteral("%1–%2").arg(100 * r.accuracy.low, 0, 'f', 2)
                                                           .arg(100 * r.accuracy.high, 0, 'f', 2)));
        m_accuracy->setItem(i, 3, new QTableWidgetItem(measured(r.massInBox)));
        m_accuracy->setItem(i, 4, new QTableWidgetItem(measured(r.pointing)));
    }
    m_accuracy->resizeColumnsToContents();
    m_disagreeNote->setText(tr("How often two rules' maps have the same most attended cell:"));
    m_disagree->setRowCount(int(c.agreement.size()));
    for (int i = 0; i < int(c.agreement.size()); ++i) {
        const auto& g = c.agreement[size_t(i)];
        m_disagree->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(g.first + " & " + g.second)));
        m_disagree->setItem(i, 1, new QTableWidgetItem(formatPercent(g.fraction, 2)));
        m_disagree->setItem(i, 2, new QTableWidgetItem(QString::number(g.same)));
    }
    m_disagree->resizeColumnsToContents();
}

void DatasetComparePanel::showComparison(const DatasetComparison& c, const QString& dataset) {
    m_rules.reset();
    setSampledHeaders(true);
    m_comparison = c;
    m_comparedDataset = dataset;
    showArrived();
    m_export->setEnabled(true);
    const auto& r = c.report;
    const QString det = QString::fromStdString(c.deterministicRule);
    const QString training = QString::fromStdString(c.trainingRule);
    m_summary->setText(tr("<b>%1</b> test split, %2 images, %3 s.<br>The model was trained with <b>%4</b> "
                          "(its training rule: <b>%5</b>); a figure under any other rule is marked as such.")
                           .arg(dataset).arg(r.labels.size()).arg(r.seconds, 0, 'f', 1)
                           .arg(QString::fromStdString(trainingModeName(r.trainedMode)), training));

    m_accuracy->setRowCount(int(r.rules.size()));
    for (int i = 0; i < int(r.rules.size()); ++i) {
        const auto& a = r.rules[size_t(i)];
        const bool trained = isTrainingRule(a.rule, c.trainingRule);
        m_accuracy->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(a.rule)));
        m_accuracy->setItem(i, 1, new QTableWidgetItem(formatPercent(a.accuracy, 2)));
        // The interval to one decimal: it spans several points, a second decimal only widens the column.
        m_accuracy->setItem(i, 2, new QTableWidgetItem(QStringLiteral("%1–%2").arg(100 * a.low, 0, 'f', 1).arg(100 * a.high, 0, 'f', 1)));
        auto* note = new QTableWidgetItem(trained ? tr("yes") : tr("no"));
        if (!trained) {
            note->setForeground(QColor(170, 90, 0));
            note->setToolTip(tr("The model was trained for %1, not for %2").arg(training, QString::fromStdString(a.rule)));
        }
        m_accuracy->setItem(i, 3, note);
    }
    m_accuracy->resizeColumnsToContents();

    QVector<double> ks, acc, low, high;
    for (const auto& k : c.kCurve) {
        ks << k.k;
        acc << 100 * k.accuracy;
        low << 100 * k.low;
        high << 100 * k.high;
    }
    m_kChart->setTitles(tr("Accuracy against K (ksample:K), 95% interval"), tr("K"), tr("accuracy (%)"));
    m_kChart->setBand(ks, acc, low, high, 100);  // fitted to the band: the differences are a few points

    m_disagreeNote->setText(tr("sample and %1 disagree on <b>%2</b> of %3 images (%4). Click one to open it under "
                               "sample with the seed it was drawn with (%5 + image).")
                                .arg(det).arg(c.disagree.size()).arg(r.labels.size()).arg(formatPercent(c.disagreement, 2))
                                .arg(c.seed));
    m_disagree->setHorizontalHeaderItem(2, new QTableWidgetItem(det));
    const auto& sample = rulePredictions(r, "sample");
    const auto& deterministic = rulePredictions(r, c.deterministicRule);
    const int rows = int(std::min<size_t>(kListedImages, c.disagree.size()));
    m_disagree->setRowCount(rows);
    for (int i = 0; i < rows; ++i) {
        const auto index = c.disagree[size_t(i)];
        auto* id = new QTableWidgetItem(QString::number(index));
        id->setData(Qt::UserRole, qint64(index));
        m_disagree->setItem(i, 0, id);
        // A captioner has no one true label: its outputs are captions, right when they are valid ones.
        const bool caption = traitsOf(r.outputKind).referenceScored;
        m_disagree->setItem(i, 1, new QTableWidgetItem(caption ? tr("(valid captions)") : className(r.labels[size_t(index)])));
        for (int col : {2, 3}) {
            const int label = (col == 2 ? deterministic : sample)[size_t(index)];
            const std::string rule = col == 2 ? c.deterministicRule : std::string("sample");
            bool right = label == r.labels[size_t(index)];
            QString text = className(label);
            if (caption) {
                text = label >= 0 && label < int(r.outputNames.size()) ? QString::fromStdString(r.outputNames[size_t(label)])
                                                                       : QString();
                for (size_t k = 0; k < r.rules.size(); ++k)
                    if (r.rules[k].rule == rule && k < r.correct.size()) right = r.correct[k][size_t(index)] == 1;
            }
            auto* item = new QTableWidgetItem(text);
            item->setForeground(right ? QColor(30, 140, 60) : QColor(190, 40, 40));
            m_disagree->setItem(i, col, item);
        }
    }
    m_disagree->resizeColumnsToContents();
}

QString DatasetComparePanel::exportAccuracy(const QString& path) const {
    if (!m_comparison && !m_rules) return tr("nothing to export: no comparison yet");
    return exportTable(*m_accuracy, path);
}

QString DatasetComparePanel::exportKCurve(const QString& path) {
    if (!m_comparison) return tr("nothing to export: no comparison yet");
    return exportView(*m_kChart, m_kChart->csv(QStringLiteral("k"), QStringLiteral("accuracy_percent"),
                                               QStringLiteral("low_percent"), QStringLiteral("high_percent")),
                      path, {}, {tr("Accuracy against K (ksample:K)"), plainText(m_summary->text())});
}

QString DatasetComparePanel::exportDisagreements(const QString& path) const {
    if (m_rules) return exportTable(*m_disagree, path);  // the rules' agreement, every pair listed
    if (!m_comparison) return tr("nothing to export: no comparison yet");
    if (!path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) return exportTable(*m_disagree, path);
    // The CSV lists every disagreeing image, also past the browser's rows.
    const auto& r = m_comparison->report;
    const auto& sample = rulePredictions(r, "sample");
    const auto& deterministic = rulePredictions(r, m_comparison->deterministicRule);
    QString csv = QStringLiteral("image,true,%1,sample\n").arg(QString::fromStdString(m_comparison->deterministicRule));
    for (const auto index : m_comparison->disagree)
        csv += QStringLiteral("%1,%2,%3,%4\n").arg(index).arg(r.labels[size_t(index)])
                   .arg(deterministic[size_t(index)]).arg(sample[size_t(index)]);
    return writeFileAtomically(path, csv.toUtf8());
}

QString DatasetComparePanel::exportJson(const QString& path) const {
    if (m_rules) return exportJsonFile(ruleComparisonToJson(*m_rules), path);
    if (!m_comparison) return tr("nothing to export: no comparison yet");
    return exportJsonFile(datasetComparisonToJson(*m_comparison), path);
}

}  // namespace saccade::ui
