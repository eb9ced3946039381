#include "ui/sequences/similarity_panel.h"

#include <memory>

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "models/translator.h"
#include "ui/sequences/similarity_view.h"

namespace saccade::ui {

SimilarityPanel::SimilarityPanel(QWidget* parent) : JobPanel(parent) {
    setObjectName(QStringLiteral("similarityPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    auto* label = new QLabel(tr("Compare with:"), this);
    m_other = new QLineEdit(this);
    m_other->setObjectName(QStringLiteral("similarityOther"));
    m_other->setText(tr("A dog walked in the park."));
    m_other->setToolTip(tr("A second sentence: how alike the encoder finds it and the typed one, and which pieces make it so"));
    label->setBuddy(m_other);
    row->addWidget(label);
    row->addWidget(m_other, 1);
    buildJobControls(tr("Compare"), QStringLiteral("similarityRun"));
    row->addWidget(runButton());
    row->addWidget(cancelButton());
    row->addWidget(progressBar());
    progressBar()->setMaximumWidth(120);
    layout->addLayout(row);
    statusLabel()->setObjectName(QStringLiteral("similaritySummary"));
    layout->addWidget(statusLabel());
    m_view = new SimilarityView(this);
    layout->addWidget(m_view);
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(250);
    connect(m_debounce, &QTimer::timeout, this, [this] { run(); });
    connect(m_other, &QLineEdit::textChanged, this, [this] { m_debounce->start(); });
    clearResult();
}

void SimilarityPanel::setInput(const QString& modelPath, const QString& text) {
    const bool otherModel = adoptModel(modelPath);
    if (!otherModel && text == m_text && m_result) return;
    m_text = text;
    m_debounce->start();
}

bool SimilarityPanel::busy() const { return isRunning() || m_again || (m_debounce->isActive() && isVisibleTo(parentWidget())); }

void SimilarityPanel::setOther(const QString& text) { m_other->setText(text); }
QString SimilarityPanel::other() const { return m_other->text(); }

void SimilarityPanel::run() {
    if (modelCheckpoint().isEmpty() || m_text.trimmed().isEmpty() || m_other->text().trimmed().isEmpty()) {
        clearResult();  // nothing to compare: no pair of an earlier sentence stays drawn
        return;
    }
    // The model's own failures come back as results (shown in red, and what changed meanwhile is
    // measured next); only a cancelled job ends without `done`, and whoever cancelled it starts anew.
    struct Outcome {
        std::optional<SentenceSimilarity> similarity;
        QString error;
    };
    auto outcome = std::make_shared<Outcome>();
    const std::string path = modelCheckpoint().toStdString(), a = m_text.toStdString(), b = m_other->text().toStdString();
    const bool started = startJob(
        [outcome, path, a, b](const Progress& progress) {
            auto model = openTranslator(path, "cpu");
            SimilarityOptions options;
            options.baseline = "auto";  // the padding piece where the vocabulary has one
            auto s = model ? attributeSimilarity(**model, a, b, options, progress) : Result<SentenceSimilarity>(Error{model.error()});
            if (!s && s.error() == "similarity cancelled") return QString::fromStdString(s.error());
            if (s) outcome->similarity = std::move(s).value();
            else outcome->error = QString::fromStdString(s.error());
            return QString();
        },
        [this, outcome] {
            if (outcome->similarity) show(*outcome->similarity);
            else showFailure(outcome->error);
            if (m_again) {
                m_again = false;
                run();
            }
        },
        tr("Measuring the similarity of the two sentences…"));
    if (!started) m_again = true;  // one runs: this pair is measured when it ends
}

void SimilarityPanel::showFailure(const QString& message) {
    m_result.reset();
    m_view->clear();
    statusLabel()->setText(QStringLiteral("<span style='color:#c33'>%1</span>").arg(message.toHtmlEscaped()));
    Q_EMIT measured();
}

void SimilarityPanel::show(const SentenceSimilarity& s) {
    m_result = s;
    m_view->setSimilarity(s);
    std::optional<double> worst;
    for (const auto& side : s.sentences)
        if (side.completenessError) worst = std::max(worst.value_or(0), *side.completenessError);
    const QString completeness = worst ? tr("each sentence's pieces sum to its change within %1 of it").arg(*worst, 0, 'g', 2)
                                       : tr("completeness not measured: the change is ~0");
    statusLabel()->setText(
        tr("Cosine similarity <b>%1</b>. What each piece adds to it (integrated gradients, %2 steps from the %3; %4): "
           "<span style='color:#c66e10'>orange</span> pulls the sentences together, <span style='color:#2a6ed0'>blue</span> "
           "pushes them apart.")
            .arg(s.cosine, 0, 'f', 3)
            .arg(s.options.steps)
            .arg(s.options.baseline == "pad" ? tr("padding piece") : tr("zero rows"))
            .arg(completeness));
    Q_EMIT measured();
}

QString textEncodingSummary(const SeqTranslation& t, const QString& mapName) {
    QStringList pieces;
    for (const auto& p : t.source) pieces << QString::fromStdString(p).toHtmlEscaped();
    QString html = QObject::tr("Output: a <b>%1-d sentence embedding</b> <span style='color:#777'>(a text encoder writes no "
                               "text)</span> &nbsp;Pieces: %2")
                       .arg(t.embedding.size())
                       .arg(pieces.join(QStringLiteral(" ")));
    if (!t.unknown.empty()) {
        QStringList u;
        for (const auto& x : t.unknown) u << QStringLiteral("'%1'").arg(QString::fromStdString(x).toHtmlEscaped());
        html += QObject::tr("<br><span style='color:#b06000'>No pieces in the vocabulary, read as the unknown piece: %1</span>")
                    .arg(u.join(QStringLiteral(", ")));
    }
    return html + QObject::tr("<br><span style='color:#555'>Rows: each piece; columns: the pieces it attends to; colour: "
                              "%1 (rows sum to 1).</span>")
                      .arg(mapName.toHtmlEscaped());
}

void SimilarityPanel::clearResult() {
    m_result.reset();
    m_view->clear();
    statusLabel()->setText(tr("Type a sentence above and another here: their similarity and what each piece adds to it."));
}

}  // namespace saccade::ui
