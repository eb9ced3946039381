#include "ui/attention/attribution_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QLabel>
#include <QStandardItemModel>

#include "ui/attention/attention_canvas.h"
#include "ui/image_convert.h"
#include "ui/model_service.h"

namespace saccade::ui {

Trace attributionTrace(const AttributionMap& map, const std::optional<GroundTruth>& truth) {
    Trace t;
    t.rule = map.rule;
    t.imageWidth = map.width;
    t.imageHeight = map.height;
    TraceStep step;
    GridDistribution grid{map.rows, map.cols, {}};
    for (double c : map.cells) grid.probs.push_back(float(c));
    step.grid = grid;
    t.steps.push_back(step);
    t.groundTruth = truth;
    return t;
}

QString attributionFigures(const AttributionMap& m) {
    auto percent = [](const std::optional<double>& v) {
        return v ? QString::number(100 * *v, 'f', 1) + QLatin1Char('%') : QObject::tr("not measured");
    };
    QString s = QObject::tr("in box %1 (box %2) · pointing %3")
                    .arg(percent(m.massInBox), percent(m.boxArea))
                    .arg(m.pointing ? (*m.pointing ? QObject::tr("hit") : QObject::tr("miss")) : QObject::tr("not measured"));
    if (m.completenessError)
        s += QObject::tr(" · completeness %1 (%2 steps)")
                 .arg(QString::number(100 * *m.completenessError, 'f', 2) + '%')
                 .arg(m.steps.value_or(0));
    if (m.converged && !*m.converged)  // the whole reason is in the tool tip
        s += QObject::tr(" · not within %1% at the most steps").arg(100 * m.tolerance.value_or(0), 0, 'g', 3);
    if (m.step) {  // a captioner's word: its map, scored on the object it names, beside the attention at its step
        s = QObject::tr("'%1': ").arg(QString::fromStdString(m.word)) + s;
        if (m.object < 0) s += QObject::tr(" · the word names no object");
        else if (m.attentionMassInBox) s += QObject::tr(" · attention there %1").arg(percent(m.attentionMassInBox));
    }
    return s + QObject::tr(" · %1 ms").arg(1000 * m.seconds, 0, 'f', 0);
}

AttributionView::AttributionView(ModelService* service, AttentionCanvas* attention, QWidget* parent)
    : QObject(parent), m_service(service), m_attention(attention) {
    m_canvas = new AttentionCanvas(parent);
    m_canvas->setObjectName(QStringLiteral("attributionCanvas"));
    m_canvas->setVisible(false);
    m_row = new QWidget(parent);
    m_combo = new QComboBox(m_row);
    m_combo->setObjectName(QStringLiteral("mapCombo"));
    m_combo->addItem(tr("attention (the rule's)"), QString());
    for (const auto& name : attributionMethods()) m_combo->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_combo->setToolTip(tr("The map to show beside attention: gradient, gradient x input, integrated gradients, "
                           "SmoothGrad, occlusion, Grad-CAM (convolutional grids) or gradient-weighted rollout "
                           "(transformers), of the class the model gives, under the rule shown"));
    m_beside = new QCheckBox(tr("Side by side"), m_row);
    m_beside->setObjectName(QStringLiteral("sideBySide"));
    m_beside->setChecked(true);
    m_beside->setToolTip(tr("The map beside the attention; off: the map alone"));
    m_shared = new QCheckBox(tr("One scale"), m_row);
    m_shared->setObjectName(QStringLiteral("sharedScale"));
    m_shared->setChecked(false);
    m_shared->setToolTip(tr("Side by side, both maps on one colour scale (the larger top); off: each map on its own "
                            "scale, its legend giving its top"));
    m_figures = new QLabel(m_row);
    m_figures->setObjectName(QStringLiteral("mapFigures"));
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The figures on a line of their own under the choices, wrapped there: long figures never
    // widen the centre column (the side panels keep their room), nor are they cut at 1280 px.
    m_figures->setWordWrap(true);
    m_figures->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* choices = new QHBoxLayout;
    choices->addWidget(new QLabel(tr("Map:"), m_row));
    choices->addWidget(m_combo);
    choices->addWidget(m_beside);
    choices->addWidget(m_shared);
    choices->addStretch(1);
    auto* layout = new QVBoxLayout(m_row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(choices);
    layout->addWidget(m_figures);
    connect(m_combo, &QComboBox::currentIndexChanged, this, [this] {
        m_map.reset();
        updateVisibility();
        request();
    });
    connect(m_beside, &QCheckBox::toggled, this, [this] { updateVisibility(); });
    connect(m_shared, &QCheckBox::toggled, this, [this] { shareScale(); });
    connect(m_service, &ModelService::attributionReady, this, &AttributionView::onReady);
    connect(m_service, &ModelService::attributionFailed, this, &AttributionView::onFailed);
    updateVisibility();
}

QString AttributionView::method() const { return m_combo->currentData().toString(); }

bool AttributionView::setMethod(const QString& method) {
    const int index = m_combo->findData(method);
    const auto* items = qobject_cast<QStandardItemModel*>(m_combo->model());
    if (index < 0 || (items && !items->item(index)->isEnabled())) return false;  // greyed out: the model cannot give it
    m_combo->setCurrentIndex(index);
    return true;
}

void AttributionView::setSideBySide(bool on) { m_beside->setChecked(on); }
bool AttributionView::sideBySide() const { return m_beside->isChecked(); }
void AttributionView::setSharedScale(bool on) { m_shared->setChecked(on); }
bool AttributionView::sharedScale() const { return m_shared->isChecked(); }
QString AttributionView::figuresText() const { return m_figures->text(); }

void AttributionView::traceShown(const Image& image, const std::optional<GroundTruth>& truth, const QString& rule,
                                 int gridSide, bool wordSteps) {
    const bool same = m_image && m_image->pixels == image.pixels && m_image->width == image.width && m_rule == rule &&
                      m_gridSide == gridSide && m_wordSteps == wordSteps && (!wordSteps || m_requestedStep == m_attention->step());
    m_wordSteps = wordSteps;
    m_image = image;
    m_truth = truth;
    m_rule = rule;
    m_gridSide = gridSide;
    if (!same || !m_map) request();
    else shareScale();
}

void AttributionView::setAvailableMaps(const QList<QPair<QString, QString>>& maps, bool classifier) {
    auto* items = qobject_cast<QStandardItemModel*>(m_combo->model());
    for (int i = 1; i < m_combo->count(); ++i) {  // 0: the attention itself
        QString reason;
        for (const auto& [name, why] : maps)
            if (classifier && name == m_combo->itemData(i).toString()) reason = why;
        if (items) items->item(i)->setEnabled(reason.isEmpty());
        m_combo->setItemData(i, reason.isEmpty() ? QVariant() : QVariant(reason), Qt::ToolTipRole);
    }
    if (items && m_combo->currentIndex() > 0 && !items->item(m_combo->currentIndex())->isEnabled()) m_combo->setCurrentIndex(0);
}

void AttributionView::clear() {
    m_image.reset();
    m_map.reset();
    m_canvas->clearTrace();
    m_figures->clear();
    shareScale();
}

void AttributionView::request() {
    if (method().isEmpty() || !m_image) {
        m_figures->clear();
        shareScale();
        return;
    }
    AttributionOptions o;
    o.method = method().toStdString();
    o.tolerance = kDefaultIgTolerance;  // integrated gradients: steps doubled until the map sums to the change
    o.rule = m_rule.toStdString();
    if (m_gridSide > 0) o.cellsPerSide = m_gridSide;  // used where the model has no cell grid of its own
    m_requestedStep = m_wordSteps ? m_attention->step() : -1;
    if (m_wordSteps) o.step = m_requestedStep;
    m_busy = true;
    // The pane shows this image from now on: never the map, or the picture, of the one before.
    m_map.reset();
    m_canvas->clearTrace();
    m_canvas->setMessage({});
    m_canvas->setImage(toQImage(*m_image));
    m_figures->setText(tr("computing %1…").arg(method()));
    m_service->requestAttribution(*m_image, m_truth, o);
}

void AttributionView::onReady(const AttributionMap& map) {
    m_busy = false;
    if (!m_image || QString::fromStdString(map.method) != method()) return;  // an answer to an older choice
    if (m_wordSteps && map.step && *map.step != m_attention->step()) return;  // an older step's word
    m_map = map;
    m_canvas->setMessage({});
    m_canvas->setImage(toQImage(*m_image));
    m_canvas->setOverlays(m_attention->overlays());
    m_canvas->setTrace(attributionTrace(map, m_truth));
    m_canvas->setLegendText(tr("%1, share per cell").arg(method()));
    m_figures->setText(attributionFigures(map));
    m_figures->setToolTip(tr("%1 of class %2 (the model gives %3), under %4: %5")
                              .arg(method())
                              .arg(map.target)
                              .arg(map.predicted)
                              .arg(QString::fromStdString(map.rule), m_figures->text()) +
                          (map.convergence.empty() ? QString() : QStringLiteral("\n") + QString::fromStdString(map.convergence)));
    shareScale();
}

void AttributionView::onFailed(const QString& message) {
    m_busy = false;
    m_map.reset();
    m_canvas->clearTrace();
    m_canvas->setImage(QImage());  // the reason alone, wrapped, on an empty pane
    m_canvas->setMessage(message);
    m_figures->setText(tr("%1: not available (see the map)").arg(method()));
    shareScale();
    Q_EMIT statusMessage(message);
}

void AttributionView::updateVisibility() {
    const bool shown = !method().isEmpty();
    m_canvas->setVisible(shown);
    m_attention->setVisible(!shown || m_beside->isChecked());
    m_beside->setEnabled(shown);
    m_shared->setEnabled(shown && m_beside->isChecked());
    shareScale();
}

void AttributionView::attentionStepChanged() {
    if (m_wordSteps && !method().isEmpty() && m_image && m_attention->step() != m_requestedStep) request();
    else shareScale();
}

void AttributionView::shareScale() {
    // Both maps are shares of their whole: one scale, asked for, lets colours compare across the
    // two; by default each keeps its own (an attribution spreads thinner than attention).
    const bool both = m_map && m_shared->isChecked() && m_canvas->isVisibleTo(m_canvas->parentWidget()) &&
                      m_attention->isVisibleTo(m_attention->parentWidget());
    const double top = both ? std::max(m_attention->stepMax(), m_canvas->stepMax()) : 0;
    m_attention->setScaleFloor(top);
    m_canvas->setScaleFloor(top);
}

}  // namespace saccade::ui
