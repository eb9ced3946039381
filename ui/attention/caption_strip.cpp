#include "ui/attention/caption_strip.h"

#include <algorithm>

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/label_lines.h"

namespace saccade::ui {

CaptionStrip::CaptionStrip(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("captionStrip"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    layout->setSpacing(2);
    // A long caption scrolls sideways instead of widening the window past the screen.
    m_scroll = new QScrollArea(this);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidgetResizable(true);
    m_scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_scroll->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    auto* row = new QWidget(m_scroll);
    m_words = new QHBoxLayout(row);
    m_words->setContentsMargins(0, 0, 0, 0);
    m_words->setSpacing(2);
    m_words->addStretch(1);
    m_scroll->setWidget(row);
    m_verdict = new QLabel(this);
    m_verdict->setWordWrap(true);
    layout->addWidget(m_scroll);
    layout->addWidget(m_verdict);
    m_companion = new QLabel(this);
    m_companion->setObjectName(QStringLiteral("companionCaption"));
    m_companion->setWordWrap(true);
    m_companion->setTextFormat(Qt::RichText);
    m_companion->setToolTip(tr("The same image decoded the other way: beam search beside greedy decoding"));
    connect(m_companion, &QLabel::linkActivated, this, &CaptionStrip::ruleRequested);
    // The strip's height never changes with its text (a verdict that wraps, a companion that comes
    // and goes): the canvas above keeps its size and zoom. Two lines each; more is in the tooltip.
    QSizePolicy keep = m_companion->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    m_companion->setSizePolicy(keep);
    holdLines(m_verdict, 2);
    holdLines(m_companion, 2);
    m_companion->hide();
    layout->addWidget(m_companion);
    hide();
}

void CaptionStrip::setTrace(const Trace& trace) {
    for (auto* b : m_buttons) b->deleteLater();
    m_buttons.clear();
    const bool words = std::any_of(trace.steps.begin(), trace.steps.end(), [](const TraceStep& s) { return !s.token.empty(); });
    setVisible(words);
    if (!words) return;
    for (int s = 0; s < int(trace.steps.size()); ++s) {
        auto* b = new QToolButton(this);
        b->setText(QString::fromStdString(trace.steps[size_t(s)].token));
        b->setAutoRaise(true);
        b->setCheckable(true);
        b->setToolTip(tr("Word %1: click to see where the decoder looked for it").arg(s + 1));
        b->setFont(wordFont(false));
        connect(b, &QToolButton::clicked, this, [this, s] { Q_EMIT stepRequested(s); });
        m_words->insertWidget(m_words->count() - 1, b);
        m_buttons << b;
    }
    fitScrollHeight();
    m_references = trace.groundTruth ? trace.groundTruth->references : std::vector<std::string>{};
    m_caption = trace.output.text;
    const auto& refs = m_references;
    if (refs.empty()) {
        m_verdict->setText(tr("No reference captions for this image."));
    } else {
        const bool exact = std::find(refs.begin(), refs.end(), trace.output.text) != refs.end();
        m_verdict->setText(exact ? tr("<span style='color:#2e7d32'>&#10003; one of the %1 valid caption(s)</span>")
                                       .arg(refs.size())
                                 : tr("<span style='color:#c62828'>&#10007; not a valid caption</span>; "
                                      "for example: <i>%1</i>").arg(QString::fromStdString(refs.front()).toHtmlEscaped()));
    }
    m_verdict->setToolTip(m_verdict->text());  // its two lines may cut a long example
    setStep(m_step < 0 ? 0 : m_step);
}

void CaptionStrip::setStep(int step) {
    m_step = step;
    for (int i = 0; i < m_buttons.size(); ++i) {
        m_buttons[i]->setChecked(i == step);
        m_buttons[i]->setFont(wordFont(i == step));
    }
    if (step >= 0 && step < m_buttons.size()) m_scroll->ensureWidgetVisible(m_buttons[step]);
}

QFont CaptionStrip::wordFont(bool current) const {
    QFont f = font();
    if (f.pointSizeF() > 0) f.setPointSizeF(f.pointSizeF() * 1.15);
    f.setBold(current);
    return f;
}

void CaptionStrip::fitScrollHeight() {
    // Room for the words and, when they do not fit, the scroll bar below them.
    if (m_buttons.isEmpty()) return;
    m_scroll->setFixedHeight(m_buttons.front()->sizeHint().height() + m_scroll->horizontalScrollBar()->sizeHint().height() + 2);
}

void CaptionStrip::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() != QEvent::FontChange) return;
    for (int i = 0; i < m_buttons.size(); ++i) m_buttons[i]->setFont(wordFont(i == m_step));
    fitScrollHeight();
    const QFont type = font();  // the labels take it after this event
    holdLines(m_verdict, 2, &type);
    holdLines(m_companion, 2, &type);
}

QStringList CaptionStrip::words() const {
    QStringList out;
    for (auto* b : m_buttons) out << b->text();
    return out;
}

QString CaptionStrip::verdict() const { return m_verdict->text(); }

void CaptionStrip::setCompanion(const std::optional<Trace>& companion) {
    m_companion->setVisible(companion.has_value());
    m_companion->setEnabled(true);
    if (!companion) return m_companion->clear();
    const QString rule = QString::fromStdString(companion->rule);
    const QString text = QString::fromStdString(companion->output.text).toHtmlEscaped();
    QString verdict;
    if (companion->output.text == m_caption)
        verdict = tr("the same caption");
    else if (!m_references.empty())
        verdict = std::find(m_references.begin(), m_references.end(), companion->output.text) != m_references.end()
                      ? tr("<span style='color:#2e7d32'>&#10003; valid</span>")
                      : tr("<span style='color:#c62828'>&#10007; not valid</span>");
    m_companion->setText(tr("Beside it, %1: <i>%2</i>%3 <a href=\"%1\">show</a>")
                             .arg(rule, text, verdict.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(verdict)));
}

QString CaptionStrip::companionText() const { return m_companion->text(); }

void CaptionStrip::markCompanionStale() { m_companion->setEnabled(false); }

}  // namespace saccade::ui
