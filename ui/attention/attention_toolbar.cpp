#include "ui/attention/attention_toolbar.h"

#include <QEvent>
#include <QFontMetrics>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "trace/rule_kind.h"

namespace saccade::ui {

namespace {

QCheckBox* makeToggle(const QString& text, const QString& tip, bool on, QWidget* parent) {
    auto* box = new QCheckBox(text, parent);
    box->setToolTip(tip);
    box->setChecked(on);
    return box;
}

struct RuleEntry {
    RuleKind kind;
    const char* label;
    const char* tip;
};

// Every rule the toolbar knows, in menu order; a model offers a subset (ModelCard::rules).
const RuleEntry kRules[] = {
    {RuleKind::Argmax, QT_TRANSLATE_NOOP("AttentionToolbar", "argmax"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "The most probable cell: deterministic")},
    {RuleKind::Mean, QT_TRANSLATE_NOOP("AttentionToolbar", "mean"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "The location policy's mean at every step: deterministic, a "
                                           "Gaussian's argmax")},
    {RuleKind::Sample, QT_TRANSLATE_NOOP("AttentionToolbar", "sample"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "One draw from the distribution at every step, seeded")},
    {RuleKind::Soft, QT_TRANSLATE_NOOP("AttentionToolbar", "soft"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "The expected context over all cells: deterministic")},
    {RuleKind::TopK, QT_TRANSLATE_NOOP("AttentionToolbar", "top-k"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "The K most probable cells, renormalised")},
    {RuleKind::Gumbel, QT_TRANSLATE_NOOP("AttentionToolbar", "Gumbel ST"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Gumbel-perturbed argmax with temperature tau, seeded")},
    {RuleKind::KSample, QT_TRANSLATE_NOOP("AttentionToolbar", "K samples"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "K seeded sample runs: every place they looked, the mean "
                                           "distribution, and the averaged output")},
    {RuleKind::Beam, QT_TRANSLATE_NOOP("AttentionToolbar", "beam search"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Captioners: beam search over words with K hypotheses and the "
                                           "training-time deterministic attention")},
    {RuleKind::Forward, QT_TRANSLATE_NOOP("AttentionToolbar", "forward"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Imported models: what the model's forward returns, deterministic")},
    {RuleKind::Caption, QT_TRANSLATE_NOOP("AttentionToolbar", "caption"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Imported captioners: the caption the model's caption method returns, "
                                           "word by word")},
    {RuleKind::Attention, QT_TRANSLATE_NOOP("AttentionToolbar", "mean of heads"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Transformers: per layer, the CLS token's attention over the patches, "
                                           "averaged over the heads")},
    {RuleKind::Head, QT_TRANSLATE_NOOP("AttentionToolbar", "one head"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Transformers: per layer, head K's attention (K from 0)")},
    {RuleKind::Rollout, QT_TRANSLATE_NOOP("AttentionToolbar", "rollout"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Transformers: attention rollout (Abnar and Zuidema 2020), the residual "
                                           "path mixed in and multiplied through the layers so far")},
    {RuleKind::Random, QT_TRANSLATE_NOOP("AttentionToolbar", "random glimpses"),
     QT_TRANSLATE_NOOP("AttentionToolbar", "Glimpses at uniformly random places, seeded: a control "
                                           "that ignores the policy")},
};

// What follows the colon of the rule named `base` (a rule the toolbar does not know: nothing).
RuleParameter parameterOf(const QString& base) {
    const auto kind = ruleKindOf(base.toStdString());
    return kind ? traitsOf(*kind).parameter : RuleParameter::None;
}

}  // namespace

AttentionToolbar::AttentionToolbar(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("attentionToolbar"));
    buildRunControls();
    buildOverlayControls();
    buildExportButton();
    buildLayout();
    setAvailableRules({}, QStringLiteral("argmax"));
    connectSignals();
    updateEnabled();
    setExportEnabled(false);
}

// The rule, its parameter (K or tau) and the seed.
void AttentionToolbar::buildRunControls() {
    m_rule = new QComboBox(this);
    m_rule->setObjectName(QStringLiteral("ruleCombo"));
    m_rule->setAccessibleName(tr("Rule"));
    m_rule->setToolTip(tr("Rule: how each step turns the attention distribution into what the model "
                          "reads. Repeated runs against argmax: the comparison panel."));
    m_k = new QSpinBox(this);
    m_k->setObjectName(QStringLiteral("ruleK"));
    m_k->setRange(1, 1000);
    m_k->setValue(3);
    m_k->setPrefix(QStringLiteral("K = "));
    m_tau = new QDoubleSpinBox(this);
    m_tau->setRange(0.05, 10);
    m_tau->setSingleStep(0.1);
    m_tau->setValue(0.5);
    m_tau->setPrefix(QStringLiteral("τ = "));
    m_seed = new QSpinBox(this);
    m_seed->setObjectName(QStringLiteral("seedSpin"));
    m_seed->setRange(0, 2147483647);
    m_seed->setValue(1);
    m_seed->setPrefix(tr("seed "));
    m_seed->setKeyboardTracking(false);
    m_seed->setToolTip(tr("Seed of the stochastic rules: the same seed gives the same run; the Runs tab's run i "
                          "uses seed + i"));
    m_newSeed = new QToolButton(this);
    m_newSeed->setText(tr("Resample"));
    m_newSeed->setToolTip(tr("Next seed: another stochastic run"));
}

// The overlay toggles, the heatmap's opacity, and the view's zoom (fit, 1:1).
void AttentionToolbar::buildOverlayControls() {
    m_heatmap = makeToggle(tr("Heatmap"), tr("The step's attention distribution"), true, this);
    m_opacity = new QSlider(Qt::Horizontal, this);
    m_opacity->setRange(0, 100);
    m_opacity->setValue(55);
    m_opacity->setMaximumWidth(90);
    m_opacity->setToolTip(tr("Heatmap opacity"));
    m_opacity->setMinimumWidth(60);
    m_chosen = makeToggle(tr("Chosen"), tr("The cells the step chose (cyan)"), true, this);
    m_path = makeToggle(tr("Path"), tr("The earlier steps' choices, numbered"), true, this);
    m_truth = makeToggle(tr("Truth"), tr("Ground-truth box (green, dashed)"), true, this);
    m_grid = makeToggle(tr("Grid"), tr("The cell grid"), false, this);
    // One button for the view's scale: it shows the zoom, and its menu fits the image or shows
    // it 1:1 (one control where three stood, so the row fits presentation type at 1,280 px).
    m_zoom = new QToolButton(this);
    m_zoom->setObjectName(QStringLiteral("zoomButton"));
    m_zoom->setText(QStringLiteral("100%"));
    m_zoom->setToolTip(tr("Zoom of the view: fit it to the window (or double-click the image), or one image "
                          "pixel per screen pixel; the wheel zooms"));
    m_zoom->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_zoom);
    menu->addAction(tr("Fit to the window"), this, &AttentionToolbar::fitRequested);
    menu->addAction(tr("1:1 (one image pixel per screen pixel)"), this, &AttentionToolbar::actualSizeRequested);
    m_zoom->setMenu(menu);
}

void AttentionToolbar::buildExportButton() {
    m_export = new QToolButton(this);
    m_export->setObjectName(QStringLiteral("exportButton"));
    m_export->setText(tr("Export"));
    m_export->setToolTip(tr("Save the view (PNG, SVG), every step (PNG strip, animated GIF) or the trace (JSON, "
                            "CSV); Ctrl+S saves the view as PNG"));
    m_export->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_export);
    const std::pair<QString, Export> entries[] = {
        {tr("View as PNG…"), Export::ViewPng},         {tr("View as SVG…"), Export::ViewSvg},
        {tr("All steps as a PNG strip…"), Export::StripPng}, {tr("All steps as an animated GIF…"), Export::Gif},
        {tr("Trace as JSON…"), Export::TraceJson},     {tr("Trace as CSV…"), Export::TraceCsv}};
    for (const auto& [text, what] : entries)
        menu->addAction(text, this, [this, what = what] { Q_EMIT exportRequested(what); });
    m_export->setMenu(menu);
}

// The run row (rule, parameter, seed, export) over the overlay row.
void AttentionToolbar::buildLayout() {
    auto* runRow = new QHBoxLayout;
    // No "Rule:" label: the box's names are the rules, its tool tip says what a rule is, and the
    // row fits presentation type at 1,280 px beside the side columns.
    runRow->addWidget(m_rule);
    m_parameter = new QStackedWidget(this);
    m_parameter->setObjectName(QStringLiteral("ruleParameter"));
    m_parameter->addWidget(new QWidget(m_parameter));  // rules without a parameter
    m_parameter->addWidget(m_k);
    m_parameter->addWidget(m_tau);
    // The rows share 1,280 pixels with the side columns: the parameter slot may shrink below its
    // preferred width, and the view's zoom button sits on the overlay row.
    m_parameter->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    for (QWidget* w : {static_cast<QWidget*>(m_k), static_cast<QWidget*>(m_tau)})
        w->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    fitParameterBoxes();
    // The seed box is sized for ten digits and the rule box for its longest name; both may give
    // up width when the row is short (presentation type at 1,280 pixels), keeping a usable minimum.
    m_seed->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_seed->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("seed 0000000")) + 24);
    m_rule->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_rule->setMinimumContentsLength(15);  // the longest name, "random glimpses", whole
    runRow->addWidget(m_parameter);
    runRow->addWidget(m_seed);
    runRow->addWidget(m_newSeed);
    runRow->addStretch(1);
    runRow->addWidget(m_export);
    auto* overlayRow = new QHBoxLayout;
    // No "Show:" label: the toggles name what they show, and the row fits presentation type at 1,280 px.
    overlayRow->addWidget(m_heatmap);
    overlayRow->addWidget(m_opacity);
    overlayRow->addWidget(m_chosen);
    overlayRow->addWidget(m_path);
    overlayRow->addWidget(m_truth);
    overlayRow->addWidget(m_grid);
    overlayRow->addStretch(1);
    overlayRow->addWidget(m_zoom);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(runRow);
    layout->addLayout(overlayRow);
}

void AttentionToolbar::connectSignals() {
    connect(m_rule, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        Q_EMIT runChanged();
    });
    connect(m_k, &QSpinBox::valueChanged, this, &AttentionToolbar::runChanged);
    connect(m_tau, &QDoubleSpinBox::valueChanged, this, &AttentionToolbar::runChanged);
    connect(m_seed, &QSpinBox::valueChanged, this, &AttentionToolbar::runChanged);
    connect(m_newSeed, &QToolButton::clicked, this, [this] { m_seed->setValue(m_seed->value() + 1); });
    for (QCheckBox* box : {m_heatmap, m_chosen, m_path, m_truth, m_grid})
        connect(box, &QCheckBox::toggled, this, [this] { Q_EMIT overlaysChanged(overlays()); });
    connect(m_opacity, &QSlider::valueChanged, this, [this] { Q_EMIT overlaysChanged(overlays()); });
}

QPair<int, int> AttentionToolbar::kRange(const QString& base) const {
    // A head is counted from 0; K of the other rules from 1 (beam widths to 100, draws to 1,000).
    const auto kind = ruleKindOf(base.toStdString());
    const QPair<int, int> own = kind == RuleKind::Head   ? QPair<int, int>{0, 4095}
                                : kind == RuleKind::Beam ? QPair<int, int>{1, 100}
                                                         : QPair<int, int>{1, 1000};
    return m_ranges.value(base, own);
}

void AttentionToolbar::fitParameterBoxes() {
    // Wide enough for the longest value ("τ = 10.00", "K = 1000", "head 999") and the arrows: a
    // clipped "τ = 0.!" says nothing.
    const QFontMetrics metrics(font());
    const int arrows = 24 + metrics.averageCharWidth();  // the up/down buttons and the frame
    m_tau->setMinimumWidth(metrics.horizontalAdvance(QStringLiteral("τ = 10.00")) + arrows);
    m_k->setMinimumWidth(metrics.horizontalAdvance(QStringLiteral("K = 1000")) + arrows);
}

void AttentionToolbar::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) fitParameterBoxes();
}

void AttentionToolbar::setAvailableRules(const QStringList& rules, const QString& fallback,
                                         const QHash<QString, QPair<int, int>>& ranges) {
    const QString current = m_rule->count() > 0 ? rule() : QString();
    m_ranges = ranges;
    {
        const QSignalBlocker block(m_rule);
        m_rule->clear();
        for (const auto& entry : kRules) {
            const QString data = QString::fromStdString(ruleName(entry.kind));
            if (!rules.isEmpty() && !rules.contains(data)) continue;
            m_rule->addItem(tr(entry.label), data);
            m_rule->setItemData(m_rule->count() - 1, tr(entry.tip), Qt::ToolTipRole);
        }
        if (current.isEmpty() || !setRule(current)) setRule(fallback.isEmpty() ? m_rule->itemData(0).toString() : fallback);
    }
    updateEnabled();
    if (!current.isEmpty() && rule() != current) Q_EMIT runChanged();
}

QString AttentionToolbar::rule() const {
    const QString base = m_rule->currentData().toString();
    switch (parameterOf(base)) {
        case RuleParameter::Count: return QStringLiteral("%1:%2").arg(base).arg(m_k->value());
        case RuleParameter::Temperature: return QStringLiteral("%1:%2").arg(base).arg(m_tau->value());
        case RuleParameter::None: break;
    }
    return base;
}

bool AttentionToolbar::setRule(const QString& rule) {
    const QString base = rule.section(QLatin1Char(':'), 0, 0);
    const int i = m_rule->findData(base);
    if (i < 0) return false;
    const QString param = rule.section(QLatin1Char(':'), 1);
    const bool counted = parameterOf(base) == RuleParameter::Count;
    const bool tempered = parameterOf(base) == RuleParameter::Temperature;
    if (!param.isEmpty() && !counted && !tempered) return false;  // "argmax:3"
    // A value outside the box's range is refused, not clamped (ksample:1000000000 is not ksample:1000).
    bool ok = true;
    const auto [low, high] = kRange(base);
    if (counted && !param.isEmpty()) {
        const int k = param.toInt(&ok);
        if (!ok || k < low || k > high) return false;
    }
    if (tempered && !param.isEmpty()) {
        const double tau = param.toDouble(&ok);
        if (!ok || tau < m_tau->minimum() || tau > m_tau->maximum()) return false;
    }
    if (counted) m_k->setRange(low, high);
    if (counted && !param.isEmpty()) m_k->setValue(param.toInt());
    if (tempered && !param.isEmpty()) m_tau->setValue(param.toDouble());
    m_rule->setCurrentIndex(i);
    return true;
}

quint64 AttentionToolbar::seed() const { return quint64(m_seed->value()); }
void AttentionToolbar::setSeed(quint64 seed) { m_seed->setValue(int(std::min<quint64>(seed, 2147483647))); }

OverlaySettings AttentionToolbar::overlays() const {
    OverlaySettings o;
    o.heatmap = m_heatmap->isChecked();
    o.heatmapOpacity = m_opacity->value() / 100.0;
    o.chosen = m_chosen->isChecked();
    o.path = m_path->isChecked();
    o.truth = m_truth->isChecked();
    o.grid = m_grid->isChecked();
    return o;
}

void AttentionToolbar::setOverlays(const OverlaySettings& o) {
    m_heatmap->setChecked(o.heatmap);
    m_opacity->setValue(int(std::lround(o.heatmapOpacity * 100)));
    m_chosen->setChecked(o.chosen);
    m_path->setChecked(o.path);
    m_truth->setChecked(o.truth);
    m_grid->setChecked(o.grid);
}

void AttentionToolbar::setZoomText(double zoom) {
    m_zoom->setText(QStringLiteral("%1%").arg(std::lround(zoom * 100)));
}

void AttentionToolbar::setExportEnabled(bool enabled) { m_export->setEnabled(enabled); }

void AttentionToolbar::updateEnabled() {
    const QString base = m_rule->currentData().toString();
    const auto kind = ruleKindOf(base.toStdString());
    const bool head = kind == RuleKind::Head;
    const bool k = parameterOf(base) == RuleParameter::Count;
    m_parameter->setCurrentIndex(k ? 1 : parameterOf(base) == RuleParameter::Temperature ? 2 : 0);
    if (k) {  // the open model's values only (a ViT with 4 heads: head 0 to 3)
        const QSignalBlocker block(m_k);
        const auto [low, high] = kRange(base);
        m_k->setRange(low, high);
    }
    m_k->setPrefix(head ? tr("head ") : QStringLiteral("K = "));
    const bool stochastic = kind && traitsOf(*kind).stochastic;
    m_seed->setEnabled(stochastic);
    m_newSeed->setEnabled(stochastic);
}

}  // namespace saccade::ui
