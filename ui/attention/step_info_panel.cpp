#include "ui/attention/step_info_panel.h"

#include <algorithm>
#include <QGroupBox>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "ui/charts/class_prob_chart.h"
#include "trace/rule_kind.h"

#include <QEvent>
#include <QTimer>

namespace saccade::ui {

namespace {

QLabel* makeLabel(QWidget* parent, const char* name) {
    auto* label = new QLabel(parent);
    label->setObjectName(QString::fromLatin1(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    return label;
}

// A class name inside rich text: escaped, so "<unk>" or "a<b" shows as typed.
QString className(const Trace& t, int k) {
    return k >= 0 && k < int(t.classNames.size()) ? QString::fromStdString(t.classNames[size_t(k)]).toHtmlEscaped()
                                                   : QStringLiteral("class %1").arg(k);
}

// What the rule is, in words, so a reader never mistakes one procedure for another.
QString ruleMeaning(const QString& rule, bool caption) {
    const auto kind = ruleKindOf(rule.toStdString());
    if (!kind) return {};
    switch (*kind) {
        case RuleKind::KSample:
            // A captioner's ksample:K samples K whole captions and shows the most frequent one (its first run).
            if (caption) return QObject::tr("%1 sampled captions: the most frequent").arg(rule.section(QLatin1Char(':'), 1));
            return QObject::tr("K sampled runs averaged: every place they looked");
        case RuleKind::Soft: return QObject::tr("expected context over all cells (deterministic)");
        case RuleKind::Argmax: return QObject::tr("the most probable cell (deterministic)");
        case RuleKind::Sample: return QObject::tr("one draw from the distribution at each step");
        case RuleKind::TopK: return QObject::tr("the K most probable cells, renormalised");
        case RuleKind::Gumbel: return QObject::tr("Gumbel-perturbed argmax (straight-through)");
        case RuleKind::Mean: return QObject::tr("the location policy's mean (deterministic)");
        case RuleKind::Random: return QObject::tr("uniformly random glimpses (a control)");
        case RuleKind::Attention: return QObject::tr("the CLS token's attention, mean of heads");
        case RuleKind::Head: return QObject::tr("one head's attention, per layer");
        case RuleKind::Rollout: return QObject::tr("attention rolled out through the layers");
        case RuleKind::Forward: return QObject::tr("what the model's forward returns");
        case RuleKind::Beam: return QObject::tr("beam search over whole captions");
        case RuleKind::Caption:
        case RuleKind::Translate:
        case RuleKind::Encode: return {};
    }
    return {};
}

// A continuous-location step (the recurrent attention model): where it looked, under which
// Gaussian, and its entropy.
QString glimpseStepText(const TraceStep& step, bool kSample, bool drawn) {
    const auto& p = *step.chosenPoint;
    QString text = QObject::tr("%1 at (%2, %3) px, %4 scale(s)")
                       .arg(kSample ? QObject::tr("mean glimpse") : QObject::tr("glimpse"))
                       .arg(p[0], 0, 'f', 1).arg(p[1], 0, 'f', 1)
                       .arg(kSample ? 1 : int(step.glimpses.size()));
    if (!step.gaussian)
        return text + QObject::tr("<br>no policy at this step (the fixed first glimpse, or random)");
    const auto& g = *step.gaussian;
    text += QObject::tr("<br>policy: Gaussian, mean (%1, %2) px, std %3 px<br>entropy %4 nats (over pixel positions)")
                .arg(g.meanX, 0, 'f', 1).arg(g.meanY, 0, 'f', 1).arg(g.stdX, 0, 'f', 1)
                .arg(step.entropy, 0, 'f', 3);
    if (!drawn) return text + QObject::tr("<br>not drawn: the mean rule looks at the policy's mean");
    return text + QObject::tr("<br>%1 %2 (locations in [-1, 1] units)")
                      .arg(kSample ? QObject::tr("mean log density of the draws") : QObject::tr("log density of the draw"))
                      .arg(step.logProb, 0, 'f', 3);
}

}  // namespace

StepInfoPanel::StepInfoPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("stepInfoPanel"));
    auto* runBox = new QGroupBox(tr("Run"), this);
    m_run = makeLabel(runBox, "runLabel");
    (new QVBoxLayout(runBox))->addWidget(m_run);
    // Short titles: a group box is at least as wide as its title (presentation type at 1280 px).
    auto* stepBox = new QGroupBox(tr("This step"), this);
    m_stepBox = stepBox;
    m_step = makeLabel(stepBox, "stepLabel");
    m_chart = new ClassProbChart(stepBox);
    auto* stepLayout = new QVBoxLayout(stepBox);
    // The chart first: the step's text (its length differs by rule) grows below it, not above.
    m_chart->setMinimumHeight(110);
    m_chart->setWholeShortNames(true);
    stepLayout->addWidget(m_chart, 1);
    stepLayout->addWidget(m_step);
    auto* outBox = new QGroupBox(tr("Final output"), this);
    m_outBox = outBox;
    m_output = makeLabel(outBox, "outputLabel");
    (new QVBoxLayout(outBox))->addWidget(m_output);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(runBox);
    layout->addWidget(stepBox, 1);
    layout->addWidget(outBox);
    setMinimumWidth(230);
    // The run text differs by rule: it keeps the room of the longest (measured on a hidden twin),
    // so the chart below starts at the same height under every rule.
    m_runProbe = makeLabel(this, "runProbe");
    m_runProbe->hide();
    clear();
}

void StepInfoPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() != QEvent::FontChange) return;
    QTimer::singleShot(0, this, [this] { reserveRunHeight(); });  // once the labels have the new type too
}

void StepInfoPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    reserveRunHeight();
}

QString StepInfoPanel::runTextFor(const Trace& t, const QString& rule, const QString& meaning, double ms,
                                  quint64 seed) const {
    const auto kind = ruleKindOf(rule.toStdString());
    const bool stochastic = kind && traitsOf(*kind).stochastic;
    return tr("<b>%1</b>%2%3<br>model %4 on %5, %7 ms<br>image %6")
        .arg(rule, stochastic ? tr(", seed %1").arg(seed) : QString(), meaning.isEmpty() ? QString() : QStringLiteral(": ") + meaning,
             QString::fromStdString(t.modelId),
             QString::fromStdString(t.device), QString::fromStdString(t.imageId))
        .arg(ms, 0, 'f', 1);
}

void StepInfoPanel::reserveRunHeight() {
    if (!m_trace) return m_run->setMinimumHeight(0);
    // The longest description any rule has, with a long seed and time, at the label's width.
    static const QString longest = [] {
        QString found;
        for (const char* rule : {"soft", "argmax", "sample", "topk:3", "gumbel:0.5", "ksample:10", "mean", "random",
                                 "attention", "head:0", "rollout", "forward", "beam:3"})
            for (bool caption : {false, true})
                if (const QString m = ruleMeaning(QLatin1String(rule), caption); m.size() > found.size()) found = m;
        return found;
    }();
    m_runProbe->setText(runTextFor(*m_trace, QStringLiteral("gumbel:10"), longest, 99999.9, 4294967295u));
    const int width = m_run->width() > 0 ? m_run->width() : m_run->sizeHint().width();
    m_run->setMinimumHeight(m_runProbe->heightForWidth(width));
}

void StepInfoPanel::setTrace(const Trace& trace, double computeMs) {
    m_trace = trace;
    m_computeMs = computeMs;
    m_stepIndex = std::clamp(m_stepIndex, 0, std::max(0, int(trace.steps.size()) - 1));
    refresh();
    reserveRunHeight();  // the run text changes with the trace, not with the step
}

void StepInfoPanel::setStep(int step) {
    m_stepIndex = step;
    refresh();
}

void StepInfoPanel::clear(const QString& message) {
    m_trace.reset();
    m_run->setText(message.isEmpty() ? tr("No trace yet.") : message);
    m_step->clear();
    m_output->clear();
    m_chart->clear();
}

QString StepInfoPanel::runText() const { return m_run->text(); }
QString StepInfoPanel::stepText() const { return m_step->text(); }
QString StepInfoPanel::outputText() const { return m_output->text(); }

void StepInfoPanel::refresh() {
    if (!m_trace || m_trace->steps.empty()) return;
    const Trace& t = *m_trace;
    const int s = std::clamp(m_stepIndex, 0, int(t.steps.size()) - 1);
    const auto& step = t.steps[size_t(s)];
    const QString rule = QString::fromStdString(t.rule);
    const bool caption = !step.token.empty();
    m_run->setText(runTextFor(t, rule, ruleMeaning(rule, caption), m_computeMs, t.seed));

    // A caption's step is one run's (the shown caption's), not K draws averaged.
    const bool kSample = isRule(rule.toStdString(), RuleKind::KSample) && !caption;
    if (!step.grid && step.chosenPoint) {
        m_step->setText(glimpseStepText(step, kSample, /*drawn=*/!isRule(rule.toStdString(), RuleKind::Mean)));
    } else {
        setCellStepText(step, kSample);
    }
    updateOutput(t, step);
}

void StepInfoPanel::setCellStepText(const TraceStep& step, bool kSample) {
    QString chosen;
    if (step.chosenCells.empty()) {
        chosen = tr("none (soft attention weights every cell)");
    } else if (step.grid) {
        constexpr int kListed = 6;
        // K draws can repeat a cell: each distinct cell once, with its count.
        QList<QPair<int, int>> distinct;  // cell, times drawn; in the trace's order
        for (int c : step.chosenCells) {
            auto it = std::find_if(distinct.begin(), distinct.end(), [c](const auto& e) { return e.first == c; });
            if (it == distinct.end()) distinct.push_back({c, 1});
            else ++it->second;
        }
        QStringList cells;
        for (int i = 0; i < int(distinct.size()) && i < kListed; ++i) {
            const int c = distinct[i].first;
            QString cell = tr("row %1, col %2").arg(c / step.grid->cols).arg(c % step.grid->cols);
            if (kSample) cell += tr(" (\u00d7%1)").arg(distinct[i].second);
            cells << cell;
        }
        chosen = cells.join(QStringLiteral("; "));
        if (int(distinct.size()) > kListed)
            chosen += tr("; and %1 more cells").arg(int(distinct.size()) - kListed);
        if (kSample) chosen += tr(" of %1 draws").arg(step.chosenCells.size());
    }
    double maxP = 0;
    if (step.grid)
        for (float p : step.grid->probs) maxP = std::max(maxP, double(p));
    const double uniform = step.grid ? std::log(double(step.grid->probs.size())) : 0;
    // Soft attention chooses nothing: no log-probability of a choice to show.
    const QString choice = step.chosenCells.empty()
                               ? QString()
                               : (kSample ? tr("mean log p(choice) %1<br>") : tr("log p(choice) %1<br>")).arg(step.logProb, 0, 'f', 3);
    m_step->setText(tr("chosen: %1<br>%2 %3 nats (uniform: %4)<br>%5largest attention %6")
                        .arg(chosen, kSample ? tr("mean entropy") : tr("entropy"))
                        .arg(step.entropy, 0, 'f', 3)
                        .arg(uniform, 0, 'f', 3)
                        .arg(choice)
                        .arg(maxP, 0, 'f', 3));
}

void StepInfoPanel::updateOutput(const Trace& t, const TraceStep& step) {
    QVector<double> probs;
    for (float p : step.outputProbs) probs << p;
    QStringList names;
    for (const auto& n : t.classNames) names << QString::fromStdString(n);
    const int truth = t.groundTruth ? t.groundTruth->label : -1;
    m_chart->setProbabilities(probs, names, truth, 5);

    // A captioner: each step's chart is its next-word distribution; the output is the caption.
    const bool caption = !step.token.empty();
    m_stepBox->setTitle(caption ? tr("Word \"%1\"").arg(QString::fromStdString(step.token)) : tr("This step"));
    m_stepBox->setToolTip(caption           ? tr("The bars: the distribution this word was chosen from")
                          : probs.isEmpty() ? tr("No class probabilities at this step yet")
                                            : tr("The bars: class probabilities; green: the true class"));
    m_outBox->setTitle(caption ? tr("Caption") : tr("Final output"));
    if (caption) {
        QString verdict;
        if (t.groundTruth && !t.groundTruth->references.empty()) {
            const auto& refs = t.groundTruth->references;
            verdict = std::find(refs.begin(), refs.end(), t.output.text) != refs.end()
                          ? tr("<br><span style='color:#2a2'>a valid caption</span>")
                          : tr("<br><span style='color:#c33'>not one of the %1 valid captions</span>").arg(refs.size());
        }
        QString named;
        if (t.groundTruth && step.wordObject >= 0 && step.wordObject < int(t.groundTruth->names.size()))
            named = tr("<br>this word names the %1 (solid box)")
                        .arg(QString::fromStdString(t.groundTruth->names[size_t(step.wordObject)]));
        m_output->setText(tr("<b>%1</b>%2%3").arg(QString::fromStdString(t.output.text).toHtmlEscaped(), verdict, named));
        return;
    }
    const int label = t.output.label;
    const double p = label >= 0 && label < int(t.output.probs.size()) ? t.output.probs[size_t(label)] : 0;
    QString verdict;
    if (truth >= 0)
        verdict = label == truth ? tr(" <span style='color:#2a2'>correct</span>")
                                 : tr(" <span style='color:#c33'>wrong: truth is %1</span>").arg(className(t, truth));
    m_output->setText(tr("<b>%1</b> (p = %2)%3").arg(className(t, label)).arg(p, 0, 'f', 3).arg(verdict));
}

}  // namespace saccade::ui
