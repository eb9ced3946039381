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
    if (modelCheckpoint().isEmpty() || m_text.trimmed().isEmpty() || m_other->text().trimmed().isEmpty()) return;
    if (isRunning()) {
        m_again = true;
        return;
    }
    auto result = std::make_shared<std::optional<SentenceSimilarity>>();
    const std::string path = modelCheckpoint().toStdString(), a = m_text.toStdString(), b = m_other->text().toStdString();
    startJob(
        [result, path, a, b](const Progress& progress) {
            auto model = openTranslator(path, "cpu");
            if (!model) return QString::fromStdString(model.error());
            auto s = attributeSimilarity(**model, a, b, {}, progress);
            if (!s) return QString::fromStdString(s.error());
            *result = std::move(s).value();
            return QString();
        },
        [this, result] {
            show(**result);
            if (m_again) {
                m_again = false;
                run();
            }
        },
        tr("Measuring the similarity of the two sentences…"));
}

void SimilarityPanel::show(const SentenceSimilarity& s) {
    m_result = s;
    m_view->setSimilarity(s);
    double worst = 0;
    for (const auto& side : s.sentences) worst = std::max(worst, side.completenessError.value_or(0));
    statusLabel()->setText(
        tr("Cosine similarity <b>%1</b>. What each piece adds to it (integrated gradients, %2 steps from the padding "
           "piece; each sentence's pieces sum to its change within %3 of it): <span style='color:#c66e10'>orange</span> "
           "pulls the sentences together, <span style='color:#2a6ed0'>blue</span> pushes them apart.")
            .arg(s.cosine, 0, 'f', 3)
            .arg(s.options.steps)
            .arg(worst, 0, 'g', 2));
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
