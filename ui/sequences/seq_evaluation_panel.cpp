#include "ui/sequences/seq_evaluation_panel.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "models/translator_eval.h"
#include "ui/file_dialogs.h"

namespace saccade::ui {

namespace {

QString percent(double v) { return QString::number(100 * v, 'f', 1) + QLatin1Char('%'); }

QString errorHtml(const std::string& message) {
    return QStringLiteral("<span style='color:#b00'>%1</span>").arg(QString::fromStdString(message).toHtmlEscaped());
}

/// The table of figures, a column per model (`names`), and what AER and the permutation test mean.
QString resultsTable(const std::vector<SeqEvalReport>& reports, const QStringList& names, bool pairs) {
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='3'><tr><th align='left'></th>");
    for (const auto& name : names) html += QStringLiteral("<th align='right'>%1</th>").arg(name.toHtmlEscaped());
    html += QStringLiteral("</tr>");
    auto row = [&](const QString& name, auto value) {
        html += QStringLiteral("<tr><td>%1</td>").arg(name);
        for (const auto& r : reports) html += QStringLiteral("<td align='right'>%1</td>").arg(value(r));
        html += QStringLiteral("</tr>");
    };
    row(QObject::tr("sentences, rule"), [](const SeqEvalReport& r) { return QStringLiteral("%1, %2").arg(r.n).arg(QString::fromStdString(r.rule)); });
    if (pairs) row(QObject::tr("pairs file"), [](const SeqEvalReport& r) {
        return QFileInfo(QString::fromStdString(r.data)).fileName().toHtmlEscaped();
    });
    row(QObject::tr("exact match"), [](const SeqEvalReport& r) { return percent(r.exactMatch); });
    row(QObject::tr("token accuracy"), [](const SeqEvalReport& r) { return percent(r.tokenAccuracy); });
    row(QObject::tr("alignment error rate (AER)"), [](const SeqEvalReport& r) {
        return r.aerMeasured ? QString::number(r.aer, 'f', 3) : QObject::tr("not measured");
    });
    row(QObject::tr("attention entropy (nats per step)"), [](const SeqEvalReport& r) { return QString::number(r.entropy, 'f', 2); });
    row(QObject::tr("permutation: median TV of the output"), [](const SeqEvalReport& r) {
        return r.permutationTested ? QString::number(r.permutationMedianTv, 'f', 3)
                                   : QObject::tr("not run (%1)").arg(QString::fromStdString(r.permutationNote));
    });
    row(QObject::tr("permutation: steps changed by < 0.05"), [](const SeqEvalReport& r) {
        return r.permutationTested ? percent(r.permutationSmallShare) : QStringLiteral("-");
    });
    row(QObject::tr("exact match on lengths never trained"), [](const SeqEvalReport& r) {
        std::int64_t n = 0;
        double ok = 0;
        for (const auto& b : r.byLength)
            if (!b.seenInTraining) { n += b.n; ok += b.exactMatch * double(b.n); }
        return n ? percent(ok / double(n)) + QStringLiteral(" of %1").arg(n) : QObject::tr("none in the split");
    });
    html += QStringLiteral("</table><span style='color:#555'>") +
            QObject::tr("AER: the decoder fed the reference output (a model that cannot be: its own output on the "
                        "sentences it got right), each target token's most attended source token against the gold "
                        "alignment (sure and possible links). Permutation test (Jain and Wallace "
                        "2019): shuffling the weights often leaves the output unchanged; attention is a record of "
                        "access, not an explanation.") +
            QStringLiteral("</span>");
    return html;
}

}  // namespace

QString seqModelName(const Translator& m) {
    return QStringLiteral("%1 (%2)")
        .arg(QFileInfo(QString::fromStdString(m.path())).completeBaseName(), QString::fromStdString(m.describe()));
}

SeqEvaluationPanel::SeqEvaluationPanel(std::function<SeqEvaluationRequest()> request, QWidget* parent)
    : QGroupBox(tr("On the task's test split (2,000 sentences) or a file of pairs"), parent), m_request(std::move(request)) {
    setObjectName(QStringLiteral("seqEvaluation"));
    m_evaluate = new QPushButton(tr("Evaluate"), this);
    m_evaluate->setObjectName(QStringLiteral("seqEvaluate"));
    m_evaluatePairs = new QPushButton(tr("On pairs…"), this);
    m_evaluatePairs->setObjectName(QStringLiteral("seqEvaluatePairs"));
    m_evaluatePairs->setToolTip(tr("Evaluate on a file of SOURCE<TAB>TARGET[<TAB>alignment] lines (saccade-cli data "
                                   "pairs writes a task's): for models without a task of their own"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_results = new QLabel(this);
    m_results->setObjectName(QStringLiteral("seqResults"));
    m_results->setTextFormat(Qt::RichText);
    m_results->setWordWrap(true);
    m_results->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    forget();
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    row->addWidget(m_evaluate);
    row->addWidget(m_evaluatePairs);
    row->addWidget(m_cancel);
    row->addWidget(m_progress, 1);
    layout->addLayout(row);
    // The table scrolls in a fixed band: evaluating never takes height from the matrices above.
    auto* resultsArea = new QScrollArea(this);
    resultsArea->setObjectName(QStringLiteral("seqResultsArea"));
    resultsArea->setWidget(m_results);
    resultsArea->setWidgetResizable(true);
    resultsArea->setFrameShape(QFrame::NoFrame);
    resultsArea->setFixedHeight(8 * m_results->fontMetrics().lineSpacing());
    layout->addWidget(resultsArea);

    connect(m_evaluate, &QPushButton::clicked, this, [this] { evaluate(); });
    connect(m_evaluatePairs, &QPushButton::clicked, this, [this] {
        const auto path = openFileDialog(this, tr("Evaluate on pairs"), tr("Pairs (*.tsv *.txt);;All files (*)"));
        if (!path.isEmpty()) evaluatePairs(path);
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_cancelFlag) m_cancelFlag->store(true);
    });
}

SeqEvaluationPanel::~SeqEvaluationPanel() {
    // The job touches only its own copies and the models it shares; no event loop is needed.
    if (m_cancelFlag) m_cancelFlag->store(true);
    m_job.waitForFinished();
}

QString SeqEvaluationPanel::resultsText() const { return m_results->text(); }

void SeqEvaluationPanel::evaluate(std::int64_t limit) { run(nullptr, QString(), limit); }

bool SeqEvaluationPanel::evaluatePairs(const QString& path, std::int64_t limit) {
    auto pairs = readSeqPairs(path.toStdString());
    if (!pairs) {
        m_results->setText(errorHtml(pairs.error()));
        Q_EMIT statusMessage(QString::fromStdString(pairs.error()));
        return false;
    }
    run(std::make_shared<const std::vector<SeqPairLine>>(std::move(pairs).value()), path, limit);
    return true;
}

void SeqEvaluationPanel::run(std::shared_ptr<const std::vector<SeqPairLine>> pairs, const QString& name, std::int64_t limit) {
    if (m_running) return;
    const SeqEvaluationRequest request = m_request();
    if (request.models.empty()) return;
    m_running = true;
    m_evaluate->setEnabled(false);
    m_evaluatePairs->setEnabled(false);
    m_cancel->setEnabled(true);
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    const auto each = std::min<std::int64_t>(limit, pairs ? std::int64_t(pairs->size()) : SeqTask::kTestSize);
    m_progress->setRange(0, int(std::int64_t(request.models.size()) * each));
    m_progress->setValue(0);
    QStringList names;
    for (const auto& m : request.models) names << seqModelName(*m);
    auto cancel = m_cancelFlag;
    QPointer<SeqEvaluationPanel> self(this);
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, generation = m_generation] {
        if (generation == m_generation) finish(watcher->result());
        watcher->deleteLater();
    });
    const std::string file = name.toStdString();
    const auto future = QtConcurrent::run([request, limit, cancel, self, pairs, file, names] {
        std::vector<SeqEvalReport> reports;
        std::int64_t before = 0;
        for (const auto& m : request.models) {
            SeqEvalOptions o;
            o.limit = limit;
            o.rule = request.rule;
            o.seed = request.seed;
            const auto progress = [&](std::int64_t done, std::int64_t) {
                const auto value = int(before + done);
                QMetaObject::invokeMethod(self, [self, value] { if (self) self->m_progress->setValue(value); }, Qt::QueuedConnection);
                return !cancel->load();
            };
            auto r = pairs ? saccade::evaluatePairs(*m, *pairs, file, o, progress) : m->evaluate(o, progress);
            if (!r) return errorHtml(r.error());
            before += r->n;
            reports.push_back(*r);
        }
        return resultsTable(reports, names, pairs != nullptr);
    });
    m_job = QFuture<void>(future);
    watcher->setFuture(future);
}

void SeqEvaluationPanel::forget() {
    ++m_generation;
    if (m_running) {
        if (m_cancelFlag) m_cancelFlag->store(true);
        m_running = false;
        Q_EMIT finished();
    }
    m_evaluate->setEnabled(true);
    m_evaluatePairs->setEnabled(true);
    m_cancel->setEnabled(false);
    m_progress->setValue(0);
    m_results->setText(tr("Exact match, token accuracy, alignment error rate against the gold alignment, attention "
                          "entropy, and the permutation test (shuffle the weights: does the output change?)."));
}

void SeqEvaluationPanel::finish(const QString& html) {
    m_results->setText(html);
    m_running = false;
    m_evaluate->setEnabled(true);
    m_evaluatePairs->setEnabled(true);
    m_cancel->setEnabled(false);
    Q_EMIT finished();
}

}  // namespace saccade::ui
